//! The df-pn hash table.
//!
//! An entry is one position seen from the attacker: the board key (side to move included) and
//! the attacker's hand, with two kinds of content:
//!
//! * facts, which are true whatever the path: `mate_len` (a forced mate in at most that many
//!   plies exists) and `nomate_depth` (no mate in `nomate_depth` plies or fewer; `INF_DEPTH`
//!   means none at all). A depth-limited search reads a fact only when it answers its own
//!   question, so searches with different length limits share one table soundly;
//! * heuristics: the last proof and disproof numbers, and the work spent (for replacement).
//!
//! Facts transfer between hands: a mate holds for any hand superior or equal to the stored
//! one, a "no mate" for any inferior or equal hand (more attacking material never hurts, and
//! the defender then holds correspondingly less).
//!
//! Layout: 4 words per entry, 4 entries per 128-byte cluster.
//!   word 0: board key (0 = empty slot)
//!   word 1: attacker hand (32 bits) | work (32 bits)
//!   word 2: pn (32 bits) | dn (32 bits)
//!   word 3: mate_len (16 bits) | nomate_depth (16 bits) | generation (8 bits)

use engine::Hand;

/// "No upper bound on the mate length known" / "no mate at any depth".
pub const INF_DEPTH: u16 = u16::MAX;
/// Proof and disproof numbers at or above this are infinite.
pub const INF: u32 = u32::MAX;

const CLUSTER: usize = 4;

/// What the table knows about a position for a search with `remaining` plies left.
#[derive(Clone, Copy, Debug)]
pub struct Probe {
    pub pn: u32,
    pub dn: u32,
    /// Shortest mate known (`INF_DEPTH`: none).
    pub mate_len: u16,
    /// Longest depth known to hold no mate (`0` with `has_nomate == false`: nothing known).
    pub nomate_depth: u16,
    pub has_nomate: bool,
    /// Whether an entry for exactly this hand exists (the node was searched before).
    pub found: bool,
}

impl Probe {
    pub const UNKNOWN: Probe =
        Probe { pn: 1, dn: 1, mate_len: INF_DEPTH, nomate_depth: 0, has_nomate: false, found: false };
}

/// A fixed-size table of `[u64; 4]` entries.
pub struct MateTable {
    words: Vec<[u64; 4]>,
    clusters: usize,
    generation: u8,
}

impl MateTable {
    /// A table of about `mb` MiB (at least one cluster).
    pub fn new(mb: usize) -> MateTable {
        let entries = (mb.max(1) << 20) / 32;
        let clusters = (entries / CLUSTER).max(1);
        MateTable { words: vec![[0u64; 4]; clusters * CLUSTER], clusters, generation: 1 }
    }

    #[inline(always)]
    fn cluster(&self, key: u64) -> usize {
        (((key as u128) * (self.clusters as u128)) >> 64) as usize * CLUSTER
    }

    /// Everything known about (`key`, `hand`) for a search with `remaining` plies.
    pub fn probe(&self, key: u64, hand: Hand, remaining: u16) -> Probe {
        let key = if key == 0 { 2 } else { key }; // 0 marks an empty slot
        let base = self.cluster(key);
        let mut p = Probe::UNKNOWN;
        for e in &self.words[base..base + CLUSTER] {
            if e[0] != key {
                continue;
            }
            let h = e[1] as u32;
            let mate_len = e[3] as u16;
            let nomate = (e[3] >> 16) as u16;
            let has_nomate = (e[3] >> 40) & 1 != 0;
            if h == hand.bits() {
                p.found = true;
                p.pn = e[2] as u32;
                p.dn = (e[2] >> 32) as u32;
                p.mate_len = p.mate_len.min(mate_len);
                if has_nomate && (!p.has_nomate || nomate > p.nomate_depth) {
                    p.nomate_depth = nomate;
                    p.has_nomate = true;
                }
            } else {
                if superior_or_equal(hand.bits(), h) {
                    p.mate_len = p.mate_len.min(mate_len);
                }
                if has_nomate && superior_or_equal(h, hand.bits()) && (!p.has_nomate || nomate > p.nomate_depth) {
                    p.nomate_depth = nomate;
                    p.has_nomate = true;
                }
            }
        }
        if p.mate_len <= remaining {
            p.pn = 0;
            p.dn = INF;
        } else if p.has_nomate && p.nomate_depth >= remaining {
            p.pn = INF;
            p.dn = 0;
        } else if p.pn == 0 || p.dn == 0 {
            // A fact for another length limit: start afresh.
            p.pn = 1;
            p.dn = 1;
        }
        p
    }

    /// Records what a search learned: heuristics `pn`/`dn` (only when neither is 0), and the
    /// facts `mate_len` / `nomate_depth` (pass `INF_DEPTH` / `None` for none).
    #[allow(clippy::too_many_arguments)]
    pub fn store(&mut self, key: u64, hand: Hand, pn: u32, dn: u32, mate_len: u16, nomate: Option<u16>, work: u32) {
        let key = if key == 0 { 2 } else { key };
        let base = self.cluster(key);
        let gen = self.generation as u64;
        let mut slot = usize::MAX;
        let mut worst = u64::MAX;
        for i in 0..CLUSTER {
            let e = &self.words[base + i];
            if e[0] == key && e[1] as u32 == hand.bits() {
                slot = i;
                break;
            }
            // Replace empty slots first, then old generations, then the least work.
            let score = if e[0] == 0 {
                0
            } else {
                let age = (gen.wrapping_sub(e[3] >> 32 & 0xff) & 0xff).min(3);
                let facts = ((e[3] as u16) != INF_DEPTH || (e[3] >> 40) & 1 != 0) as u64;
                ((3 - age) << 40) | (facts << 39) | (e[1] >> 32)
            };
            if score < worst {
                worst = score;
                slot = i;
            }
        }
        let e = &mut self.words[base + slot];
        let same = e[0] == key && e[1] as u32 == hand.bits();
        let (mut old_mate, mut old_nomate, mut old_has, mut old_work) = (INF_DEPTH, 0u16, false, 0u32);
        if same {
            old_mate = e[3] as u16;
            old_nomate = (e[3] >> 16) as u16;
            old_has = (e[3] >> 40) & 1 != 0;
            old_work = (e[1] >> 32) as u32;
        }
        let mate_len = mate_len.min(old_mate);
        let (has, nomate_depth) = match (nomate, old_has) {
            (Some(n), true) => (true, n.max(old_nomate)),
            (Some(n), false) => (true, n),
            (None, h) => (h, old_nomate),
        };
        let (pn, dn) = if pn == 0 || dn == 0 {
            if same {
                (e[2] as u32, (e[2] >> 32) as u32)
            } else {
                (1, 1)
            }
        } else {
            (pn, dn)
        };
        let work = old_work.saturating_add(work);
        e[0] = key;
        e[1] = hand.bits() as u64 | (work as u64) << 32;
        e[2] = pn as u64 | (dn as u64) << 32;
        e[3] = mate_len as u64 | (nomate_depth as u64) << 16 | gen << 32 | (has as u64) << 40;
    }

    /// Starts a new search: older entries become the first to be replaced.
    pub fn new_search(&mut self) {
        self.generation = self.generation.wrapping_add(1).max(1);
    }
}

/// `Hand::is_superior_or_equal` on raw bits (the layout documented in engine/src/hand.rs:
/// one spare bit above each count, so a borrow shows there exactly when a count is smaller).
#[inline(always)]
fn superior_or_equal(a: u32, b: u32) -> bool {
    const BORROW: u32 = (1 << 5) | (1 << 11) | (1 << 15) | (1 << 19) | (1 << 22) | (1 << 26) | (1 << 31);
    a.wrapping_sub(b) & BORROW == 0
}

#[cfg(test)]
mod tests {
    use super::*;
    use engine::{PieceType, Position};

    #[test]
    fn raw_superiority_matches_hand() {
        let a = Position::from_sfen("4k4/9/9/9/9/9/9/9/4K4 b 2P1L1N1S1B1R1G2p 1").unwrap();
        let b = Position::from_sfen("4k4/9/9/9/9/9/9/9/4K4 b P1S1G1r 1").unwrap();
        let hands = [
            a.hand(engine::Color::Black),
            a.hand(engine::Color::White),
            b.hand(engine::Color::Black),
            b.hand(engine::Color::White),
            Hand::EMPTY,
        ];
        for x in hands {
            for y in hands {
                assert_eq!(superior_or_equal(x.bits(), y.bits()), x.is_superior_or_equal(y));
            }
        }
        assert!(hands[0].count(PieceType::Pawn) == 2);
    }
}
