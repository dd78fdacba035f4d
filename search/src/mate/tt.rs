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
//!   word 3: mate_len (16 bits) | nomate_depth (16 bits) | generation (16 bits) | has_nomate
//!
//! Every solve is a new generation, and an entry of another generation counts as empty: the
//! memory of a dropped table is kept per thread and reused by the next table of the same size,
//! so a solve neither allocates nor clears megabytes (a game's root mate search and a tsume
//! suite run many small solves). The table is cleared only when the 16-bit generation wraps.

use engine::hugemem::ZeroedArray;
use engine::Hand;
use std::cell::RefCell;

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
    /// The proof pieces (hand bits) of that mate.
    pub proof: u32,
    /// Longest depth known to hold no mate (`0` with `has_nomate == false`: nothing known).
    pub nomate_depth: u16,
    pub has_nomate: bool,
    /// Whether an entry for exactly this hand exists.
    pub found: bool,
    /// Whether that entry records a search of the node (work > 0), not only an estimate.
    pub searched: bool,
}

impl Probe {
    pub const UNKNOWN: Probe = Probe {
        pn: 1,
        dn: 1,
        mate_len: INF_DEPTH,
        proof: 0,
        nomate_depth: 0,
        has_nomate: false,
        found: false,
        searched: false,
    };
}

const GEN_SHIFT: u32 = 32;
const HAS_NOMATE: u64 = 1 << 48;

thread_local! {
    /// The memory of the last table dropped on this thread, with its generation.
    static SPARE: RefCell<Option<(ZeroedArray<[u64; 4]>, u16)>> = const { RefCell::new(None) };
}

/// A fixed-size table of `[u64; 4]` entries.
pub struct MateTable {
    words: ZeroedArray<[u64; 4]>,
    clusters: usize,
    generation: u16,
}

impl MateTable {
    /// A table of about `mb` MiB (at least one cluster), empty; at most what the machine can
    /// spare (`capped_mb`) and smaller (halved until the machine can map it) if need be.
    pub fn new(mb: usize) -> MateTable {
        let entries = crate::capped_mb(mb).0.saturating_mul(1 << 20) / 32;
        let len = (entries / CLUSTER).max(1) * CLUSTER;
        let spare = SPARE.with(|s| s.borrow_mut().take()).filter(|(w, _)| w.len() == len);
        // SAFETY: entries are u64 words, for which all-zero is a valid (empty) value.
        let (words, generation) = spare.unwrap_or_else(|| (unsafe { ZeroedArray::largest_up_to(len, CLUSTER) }, 0));
        let clusters = words.len() / CLUSTER;
        let mut t = MateTable { words, clusters, generation };
        t.new_search();
        t
    }

    #[inline(always)]
    fn generation_of(&self, e: &[u64; 4]) -> u16 {
        (e[3] >> GEN_SHIFT) as u16
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
        // Heuristics inherited from other hands (dlshogi's idea): a smaller hand is at least as
        // hard to mate with, a larger one at least as hard to refute.
        let (mut pn_other, mut dn_other) = (1u32, 1u32);
        for e in &self.words[base..base + CLUSTER] {
            if e[0] != key || self.generation_of(e) != self.generation {
                continue;
            }
            let h = e[1] as u32;
            let mate_len = e[3] as u16;
            let nomate = (e[3] >> 16) as u16;
            let has_nomate = e[3] & HAS_NOMATE != 0;
            if h == hand.bits() {
                p.found = true;
                p.searched = e[1] >> 32 != 0;
                p.pn = e[2] as u32;
                p.dn = (e[2] >> 32) as u32;
                if mate_len < p.mate_len {
                    p.mate_len = mate_len;
                    p.proof = h;
                }
                if has_nomate && (!p.has_nomate || nomate > p.nomate_depth) {
                    p.nomate_depth = nomate;
                    p.has_nomate = true;
                }
            } else {
                if superior_or_equal(hand.bits(), h) {
                    if mate_len < p.mate_len {
                        p.mate_len = mate_len;
                        p.proof = h;
                    }
                    dn_other = dn_other.max((e[2] >> 32) as u32);
                }
                if superior_or_equal(h, hand.bits()) {
                    if has_nomate && (!p.has_nomate || nomate > p.nomate_depth) {
                        p.nomate_depth = nomate;
                        p.has_nomate = true;
                    }
                    pn_other = pn_other.max(e[2] as u32);
                }
            }
        }
        if !p.found {
            p.pn = pn_other;
            p.dn = dn_other;
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

    /// Records what a search learned about (`key`, `hand` bits): heuristics `pn`/`dn` (only when
    /// neither is 0), and the facts `mate_len` / `nomate_depth` (pass `INF_DEPTH` / `None` for
    /// none). A mate is stored under its proof pieces, which may be fewer than the node's hand.
    #[allow(clippy::too_many_arguments)]
    pub fn store(&mut self, key: u64, hand: u32, pn: u32, dn: u32, mate_len: u16, nomate: Option<u16>, work: u32) {
        let key = if key == 0 { 2 } else { key };
        let base = self.cluster(key);
        let gen = self.generation;
        let mut slot = usize::MAX;
        let mut worst = u64::MAX;
        for i in 0..CLUSTER {
            let e = &self.words[base + i];
            let live = e[0] != 0 && self.generation_of(e) == gen;
            if live && e[0] == key && e[1] as u32 == hand {
                slot = i;
                break;
            }
            // Replace empty slots (and other generations') first, then the least work.
            let score = if !live {
                0
            } else {
                let facts = ((e[3] as u16) != INF_DEPTH || e[3] & HAS_NOMATE != 0) as u64;
                (1 << 40) | (facts << 39) | (e[1] >> 32)
            };
            if score < worst {
                worst = score;
                slot = i;
            }
        }
        let same = {
            let e = &self.words[base + slot];
            e[0] == key && e[1] as u32 == hand && self.generation_of(e) == gen
        };
        let e = &mut self.words[base + slot];
        let (mut old_mate, mut old_nomate, mut old_has, mut old_work) = (INF_DEPTH, 0u16, false, 0u32);
        if same {
            old_mate = e[3] as u16;
            old_nomate = (e[3] >> 16) as u16;
            old_has = e[3] & HAS_NOMATE != 0;
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
        e[1] = hand as u64 | (work as u64) << 32;
        e[2] = pn as u64 | (dn as u64) << 32;
        e[3] = mate_len as u64
            | (nomate_depth as u64) << 16
            | (gen as u64) << GEN_SHIFT
            | if has { HAS_NOMATE } else { 0 };
    }

    /// Starts a new search: every entry of an earlier one counts as empty from now on.
    pub fn new_search(&mut self) {
        self.generation = self.generation.wrapping_add(1);
        if self.generation == 0 {
            // Wrapped: entries of the generation now reused must not come back.
            self.words.iter_mut().for_each(|e| *e = [0; 4]);
            self.generation = 1;
        }
    }
}

impl Drop for MateTable {
    fn drop(&mut self) {
        let words = std::mem::take(&mut self.words);
        let generation = self.generation;
        SPARE.with(|s| *s.borrow_mut() = Some((words, generation)));
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
