//! Depth-first proof-number search (Nagai's df-pn) for tsume: OR nodes are the attacker's
//! (checking moves only), AND nodes the defender's (every evasion, interpositions by any piece
//! it holds included).
//!
//! Every search runs under a length limit: a node knows how many plies remain, an OR node with
//! none left is disproved, an AND node with none left is proved only when it is checkmate. The
//! first search uses the `MAX_PLY` guard as its limit; shorter mates are then found by searching
//! again with the limit set two plies below the best mate known, until that search disproves.
//! The table stores facts that hold for every limit ("mate in at most n", "no mate in n or
//! fewer"), so all these searches share it soundly.
//!
//! Repetition: a position repeated on the current path is a failure for the attacker (a mate
//! never needs one, and perpetual check loses). Such a disproof depends on the path (the GHI
//! problem), so it carries a taint: the ply of the repeated ancestor. A disproof computed from
//! tainted children keeps the smallest taint; it becomes path-independent (clean) when the
//! search returns to the ancestor it names, and only clean disproofs are stored in the table.
//! Proofs never depend on repetitions, so a proof is always stored.
//!
//! Thrashing control: the best child gets a threshold of (1 + 1/4) times the second best
//! value (the "1 + epsilon" trick of Pawlewicz and Lew), and children's values are kept in a
//! per-ply buffer while their parent loops, so a path-dependent result cannot be lost to the
//! table between two iterations.

use super::proof;
use super::tt::{MateTable, INF, INF_DEPTH};
use super::MateProgress;
use engine::{
    find_mate_in_1, flights_left, free_flights, generate, generate_checks, is_mate_after_check, zobrist, Bitboard,
    Color, GenKind, Hand, Move, MoveList, Position,
};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

/// The deepest line the solver follows; longer mates are not found.
pub const MAX_PLY: u16 = 320;

const NO_TAINT: u16 = u16::MAX;

/// The OR look-ahead tests for a mate in 3 only checks with at most this many evasions; the
/// others, tried last anyway (their pn is the evasion count), get their own AND look-ahead
/// if the search ever reaches them.
const LOOKAHEAD_MAX_EVASIONS: usize = 12;

/// The result of searching a node: proof and disproof numbers (0 = proved / disproved under
/// the node's length limit) and the facts that back a proof or disproof.
#[derive(Clone, Copy, Debug)]
pub struct Outcome {
    pub pn: u32,
    pub dn: u32,
    /// Length of the proof found (when `pn == 0`).
    pub mate_len: u16,
    /// No mate within this many plies (when `dn == 0`).
    pub nomate: u16,
    /// Ply of the repeated ancestor a disproof depends on (`NO_TAINT`: none).
    pub taint: u16,
    /// The proof pieces (`Hand::bits`) of a proof (when `pn == 0`).
    pub proof: u32,
}

impl Outcome {
    /// Disproved at every length, depending on no ancestor.
    const NO_MATE: Outcome =
        Outcome { pn: INF, dn: 0, mate_len: INF_DEPTH, nomate: INF_DEPTH, taint: NO_TAINT, proof: 0 };
}

#[derive(Clone, Copy)]
struct Child {
    mv: Move,
    pn: u32,
    dn: u32,
    mate_len: u16,
    nomate: u16,
    taint: u16,
    proof: u32,
    /// King flights the check surely leaves (OR nodes' children; a move-ordering hint).
    flights: u8,
    /// Whether the table had an entry for exactly this child.
    known: bool,
}

/// A df-pn solver with its table; reusable across positions.
pub struct Solver<'a> {
    pub tt: MateTable,
    pub nodes: u64,
    pub max_nodes: u64,
    pub deadline: Option<Instant>,
    pub stop: Option<&'a AtomicBool>,
    pub progress: Option<&'a mut dyn FnMut(MateProgress)>,
    pub aborted: bool,
    /// Statistics: repetitions met, tainted disproofs left out of the table.
    pub stats: [u64; 2],
    start: Instant,
    next_report: Instant,
    path: Vec<u64>,
    pool: Vec<Vec<Child>>,
}

impl<'a> Solver<'a> {
    /// A solver with a table of `hash_mb` MiB and no limits.
    pub fn new(hash_mb: usize) -> Solver<'a> {
        let now = Instant::now();
        Solver {
            tt: MateTable::new(hash_mb),
            nodes: 0,
            max_nodes: u64::MAX,
            deadline: None,
            stop: None,
            progress: None,
            aborted: false,
            stats: [0; 2],
            start: now,
            next_report: now + std::time::Duration::from_secs(1),
            path: vec![0; MAX_PLY as usize + 2],
            pool: (0..MAX_PLY as usize + 2).map(|_| Vec::new()).collect(),
        }
    }

    /// Restarts the clock and the node count (the table is kept).
    pub fn reset_counters(&mut self) {
        self.nodes = 0;
        self.aborted = false;
        self.start = Instant::now();
        self.next_report = self.start + std::time::Duration::from_secs(1);
    }

    /// Milliseconds since `reset_counters`.
    pub fn elapsed_ms(&self) -> u64 {
        self.start.elapsed().as_millis() as u64
    }

    /// Searches the OR node `pos` (the attacker to move) at `ply` with at most `limit` plies.
    pub fn search_or(&mut self, pos: &mut Position, ply: usize, limit: u16) -> Outcome {
        self.mid(pos, ply, limit, true, INF, INF)
    }

    /// Searches the AND node `pos` (the defender to move) at `ply` with at most `limit` plies.
    pub fn search_and(&mut self, pos: &mut Position, ply: usize, limit: u16) -> Outcome {
        self.mid(pos, ply, limit, false, INF, INF)
    }

    /// Records the key of a position on the current line (for repetition checks below it).
    pub fn set_path(&mut self, ply: usize, key: u64) {
        self.path[ply] = key;
    }

    /// What the table knows about the position after `m` (attacker colour `attacker`).
    pub fn probe_child(&self, pos: &Position, m: Move, attacker: Color, remaining: u16) -> (u32, u32, u16) {
        let (key, hand) = child_key(pos, m, attacker);
        let p = self.tt.probe(key, hand, remaining);
        (p.pn, p.dn, p.mate_len)
    }

    fn poll(&mut self) {
        if let Some(stop) = self.stop {
            if stop.load(Ordering::Relaxed) {
                self.aborted = true;
            }
        }
        if self.nodes >= self.max_nodes {
            self.aborted = true;
        }
        if self.nodes & 255 == 0 {
            let now = Instant::now();
            if let Some(d) = self.deadline {
                if now >= d {
                    self.aborted = true;
                }
            }
            if now >= self.next_report {
                self.next_report = now + std::time::Duration::from_secs(1);
                let p = MateProgress { nodes: self.nodes, time_ms: self.elapsed_ms() };
                if let Some(f) = self.progress.as_mut() {
                    f(p);
                }
            }
        }
    }

    /// Cheap look-ahead at a node seen for the first time (as dlshogi's df-pn does): an OR
    /// node with a check that leaves no evasion is mate in 1; an AND node all of whose evasions
    /// allow a mate in 1 is mate in 2, and one with an evasion after which the attacker has no
    /// check at all is no mate. Children's values are updated in place; an OR node's new AND
    /// children get their number of evasions as proof number.
    fn quick_check(&mut self, pos: &mut Position, children: &mut [Child], is_or: bool, r: u16) -> Option<Outcome> {
        if is_or {
            for c in children.iter_mut() {
                // A check that surely leaves a flight is no mate (`flights_left`).
                if c.pn == 0 || c.flights > 0 {
                    continue;
                }
                if is_mate_after_check(pos, c.mv) {
                    c.pn = 0;
                    c.dn = INF;
                    c.mate_len = 0;
                    c.proof = proof::mated_after(pos, c.mv);
                    let proof = proof::before_move(pos, c.mv, c.proof);
                    return Some(Outcome { pn: 0, dn: INF, mate_len: 1, nomate: 0, taint: NO_TAINT, proof });
                }
            }
            if r < 3 {
                return None;
            }
            // Mate in 3: a check all of whose evasions allow a mate in 1.
            let attacker = pos.side_to_move();
            for c in children.iter_mut() {
                if c.pn == 0 || c.dn == 0 {
                    continue;
                }
                pos.do_move(c.mv);
                let key = pos.board_key();
                let hand = pos.hand(attacker);
                let mut evasions = MoveList::new();
                generate(pos, GenKind::All, &mut evasions);
                let mut all_mated = true;
                let mut refuted = false;
                let mut need =
                    proof::blocking_guard(hand.bits(), pos.hand(!attacker).bits(), proof::blockable_now(pos));
                let test_mate3 = evasions.len() <= LOOKAHEAD_MAX_EVASIONS;
                for &e in evasions.iter() {
                    if !test_mate3 || pos.gives_check(e) {
                        all_mated = false;
                        break;
                    }
                    pos.do_move(e);
                    let (mated, no_check) = self.mate1_probe(pos, attacker);
                    pos.undo_move(e);
                    match mated {
                        Some(p) => need = proof::union(need, p),
                        None => {
                            all_mated = false;
                            refuted = no_check;
                            break;
                        }
                    }
                }
                pos.undo_move(c.mv);
                if all_mated {
                    self.tt.store(key, need, 0, INF, 2, None, 1);
                    c.pn = 0;
                    c.dn = INF;
                    c.mate_len = 2;
                    c.proof = need;
                    let proof = proof::before_move(pos, c.mv, need);
                    return Some(Outcome { pn: 0, dn: INF, mate_len: 3, nomate: 0, taint: NO_TAINT, proof });
                }
                if refuted {
                    self.tt.store(key, hand.bits(), INF, 0, INF_DEPTH, Some(INF_DEPTH), 1);
                    c.pn = INF;
                    c.dn = 0;
                    c.nomate = INF_DEPTH;
                    c.taint = NO_TAINT;
                } else if !c.known {
                    // A new AND child starts with pn = its number of evasions (as in dlshogi's
                    // df-pn), so checks leaving few replies are tried first. Its dn stays 1:
                    // summing evasion counts into the parent's dn makes disproofs thrash. The
                    // entry also marks the child as looked at when its own look-ahead is the
                    // one just done (work 1; an unsearched estimate has work 0).
                    let n = evasions.len() as u32;
                    self.tt.store(key, hand.bits(), n, 1, INF_DEPTH, None, test_mate3 as u32);
                    c.pn = n;
                    c.dn = 1;
                }
            }
            if children.iter().all(|c| c.dn == 0 && c.taint == NO_TAINT && c.nomate == INF_DEPTH) {
                return Some(Outcome::NO_MATE);
            }
            return None;
        }
        if r < 2 {
            return None;
        }
        let attacker = !pos.side_to_move();
        let mut all_mated = true;
        for c in children.iter_mut() {
            if c.pn == 0 {
                continue;
            }
            if c.dn == 0 {
                all_mated = false;
                continue;
            }
            pos.do_move(c.mv);
            let (mated, no_check) = self.mate1_probe(pos, attacker);
            let hand = pos.hand(attacker);
            let key = pos.board_key();
            pos.undo_move(c.mv);
            if let Some(p) = mated {
                c.pn = 0;
                c.dn = INF;
                c.mate_len = 1;
                c.proof = p;
            } else if no_check {
                c.pn = INF;
                c.dn = 0;
                c.nomate = INF_DEPTH;
                self.tt.store(key, hand.bits(), INF, 0, INF_DEPTH, Some(INF_DEPTH), 1);
                return Some(Outcome::NO_MATE);
            } else {
                all_mated = false;
                break;
            }
        }
        if all_mated {
            // Children proved earlier may have longer mates than the ones found here.
            let len = children.iter().map(|c| c.mate_len).max().unwrap_or(1);
            let proof = and_proof(pos, children);
            return Some(Outcome { pn: 0, dn: INF, mate_len: len + 1, nomate: 0, taint: NO_TAINT, proof });
        }
        None
    }

    /// At an OR node: (the proof pieces of a mate in 1, if any; are there no checks at all). A
    /// mate in 1 found is stored in the table under its proof pieces.
    fn mate1_probe(&mut self, pos: &mut Position, attacker: Color) -> (Option<u32>, bool) {
        let (mate, any_check) = find_mate_in_1(pos);
        if let Some(m) = mate {
            let need = proof::before_move(pos, m, proof::mated_after(pos, m));
            debug_assert!(proof::within(need, pos.hand(attacker).bits()));
            self.tt.store(pos.board_key(), need, 0, INF, 1, None, 1);
            return (Some(need), false);
        }
        (None, !any_check)
    }

    /// Fills `self.pool[ply]` with the children of `pos` and their table values.
    #[inline(never)]
    fn expand(&mut self, pos: &Position, ply: usize, is_or: bool, remaining: u16) {
        let mut list = MoveList::new();
        if is_or {
            generate_checks(pos, &mut list);
        } else {
            generate(pos, GenKind::All, &mut list);
        }
        let attacker = if is_or { pos.side_to_move() } else { !pos.side_to_move() };
        let free = if is_or { free_flights(pos) } else { Bitboard::EMPTY };
        let children = &mut self.pool[ply];
        children.clear();
        for &m in list.iter() {
            let (key, hand) = child_key(pos, m, attacker);
            let p = self.tt.probe(key, hand, remaining);
            children.push(Child {
                mv: m,
                pn: p.pn,
                dn: p.dn,
                mate_len: p.mate_len,
                nomate: if p.has_nomate { p.nomate_depth } else { 0 },
                taint: NO_TAINT,
                proof: p.proof,
                // Between checks of equal proof numbers, the one leaving the king fewer flights
                // is tried first (a new child's pn is set by the look-ahead, `quick_check`).
                flights: if is_or { flights_left(pos, free, m).count() as u8 } else { 0 },
                known: p.found,
            });
        }
    }

    fn mid(&mut self, pos: &mut Position, ply: usize, r: u16, is_or: bool, th_pn: u32, th_dn: u32) -> Outcome {
        self.nodes += 1;
        self.poll();
        let full_key = pos.key();
        let mut q = ply;
        while q >= 2 {
            q -= 2;
            if self.path[q] == full_key {
                self.stats[0] += 1;
                return Outcome { pn: INF, dn: 0, mate_len: INF_DEPTH, nomate: INF_DEPTH, taint: q as u16, proof: 0 };
            }
        }
        self.path[ply] = full_key;
        if is_or && r == 0 {
            return Outcome { pn: INF, dn: 0, mate_len: INF_DEPTH, nomate: 0, taint: NO_TAINT, proof: 0 };
        }
        if !is_or && (r == 0 || ply + 1 >= self.path.len()) {
            return if pos.has_legal_move() {
                Outcome { pn: INF, dn: 0, mate_len: INF_DEPTH, nomate: r, taint: NO_TAINT, proof: 0 }
            } else {
                Outcome { pn: 0, dn: INF, mate_len: 0, nomate: 0, taint: NO_TAINT, proof: proof::mated_now(pos) }
            };
        }
        let attacker = if is_or { pos.side_to_move() } else { !pos.side_to_move() };
        let hand = pos.hand(attacker);
        let bkey = pos.board_key();
        let nodes_at_entry = self.nodes;

        let fresh = !self.tt.probe(bkey, hand, r).searched;
        self.expand(pos, ply, is_or, r - 1);
        let mut children = std::mem::take(&mut self.pool[ply]);
        let quick = if fresh && !children.is_empty() { self.quick_check(pos, &mut children, is_or, r) } else { None };
        let out;
        if let Some(o) = quick {
            out = o;
        } else if children.is_empty() {
            out = if is_or {
                Outcome { pn: INF, dn: 0, mate_len: INF_DEPTH, nomate: INF_DEPTH, taint: NO_TAINT, proof: 0 }
            } else {
                Outcome { pn: 0, dn: INF, mate_len: 0, nomate: 0, taint: NO_TAINT, proof: proof::mated_now(pos) }
            };
        } else {
            loop {
                let (pn, dn) = values(&children, is_or);
                if pn == 0 || dn == 0 || pn >= th_pn || dn >= th_dn || self.aborted {
                    out = finish(pos, &children, is_or, pn, dn, ply);
                    break;
                }
                // The most proving child and the runner-up value.
                let (best, second) = if is_or {
                    select(&children, |c| c.pn, |c| (u64::from(8 - c.flights) << 32) | u64::from(c.dn))
                } else {
                    select(&children, |c| c.dn, |c| u64::from(c.pn))
                };
                let c = children[best];
                let grow = |s: u32| s.saturating_add(1).max(s.saturating_add(s / 4));
                let (cth_pn, cth_dn) = if is_or {
                    (th_pn.min(grow(second)), sub_others(th_dn, dn, c.dn))
                } else {
                    (sub_others(th_pn, pn, c.pn), th_dn.min(grow(second)))
                };
                pos.do_move(c.mv);
                let o = self.mid(pos, ply + 1, r - 1, !is_or, cth_pn, cth_dn);
                pos.undo_move(c.mv);
                let ch = &mut children[best];
                ch.pn = o.pn;
                ch.dn = o.dn;
                if o.pn == 0 && o.mate_len <= ch.mate_len {
                    ch.mate_len = o.mate_len;
                    ch.proof = o.proof;
                }
                if o.dn == 0 {
                    ch.nomate = o.nomate;
                    ch.taint = o.taint;
                }
            }
        }
        self.pool[ply] = children;
        // Work counts this node too: an entry with work 0 is an estimate never searched.
        let work = (self.nodes - nodes_at_entry + 1).min(u32::MAX as u64) as u32;
        if out.pn == 0 {
            debug_assert!(proof::within(out.proof, hand.bits()));
            self.tt.store(bkey, out.proof, 0, INF, out.mate_len, None, work);
        } else if out.dn == 0 {
            if out.taint == NO_TAINT {
                self.tt.store(bkey, hand.bits(), INF, 0, INF_DEPTH, Some(out.nomate), work);
            } else {
                self.stats[1] += 1;
            }
        } else {
            self.tt.store(bkey, hand.bits(), out.pn, out.dn, INF_DEPTH, None, work);
        }
        out
    }
}

/// The node's proof and disproof numbers from its children's.
#[inline(always)]
fn values(children: &[Child], is_or: bool) -> (u32, u32) {
    let mut min = INF;
    let mut sum: u64 = 0;
    let mut inf = false;
    for c in children {
        let (m, s) = if is_or { (c.pn, c.dn) } else { (c.dn, c.pn) };
        min = min.min(m);
        if s == INF {
            inf = true;
        }
        sum += s as u64;
    }
    let sum = if inf { INF } else { sum.min(INF as u64 - 1) as u32 };
    if is_or {
        (min, sum)
    } else {
        (sum, min)
    }
}

/// Index of the child with the smallest `key` (ties: the largest `other`), and the second
/// smallest `key` value.
#[inline(always)]
fn select(children: &[Child], key: impl Fn(&Child) -> u32, other: impl Fn(&Child) -> u64) -> (usize, u32) {
    let mut best = 0;
    let mut best_v = INF;
    let mut best_o = 0;
    let mut second = INF;
    for (i, c) in children.iter().enumerate() {
        let v = key(c);
        if v < best_v || (v == best_v && other(c) > best_o) {
            second = best_v.min(second);
            best = i;
            best_v = v;
            best_o = other(c);
        } else if v < second {
            second = v;
        }
    }
    (best, second)
}

/// The threshold left for the best child when the others' sum is `total - own`.
#[inline(always)]
fn sub_others(th: u32, total: u32, own: u32) -> u32 {
    let others = total.saturating_sub(own);
    th.saturating_sub(others)
}

/// The proof pieces of an AND node `pos` all of whose `children` are proved.
fn and_proof(pos: &Position, children: &[Child]) -> u32 {
    let them = pos.side_to_move();
    let guard = proof::blocking_guard(pos.hand(!them).bits(), pos.hand(them).bits(), proof::blockable_now(pos));
    children.iter().fold(guard, |acc, c| proof::union(acc, c.proof))
}

/// The outcome of a node from its children once the loop ends.
fn finish(pos: &Position, children: &[Child], is_or: bool, pn: u32, dn: u32, ply: usize) -> Outcome {
    let mut out = Outcome { pn, dn, mate_len: INF_DEPTH, nomate: 0, taint: NO_TAINT, proof: 0 };
    if pn == 0 {
        let len = if is_or {
            let c = children.iter().filter(|c| c.pn == 0).min_by_key(|c| c.mate_len).expect("a proved child");
            out.proof = proof::before_move(pos, c.mv, c.proof);
            c.mate_len
        } else {
            out.proof = and_proof(pos, children);
            children.iter().map(|c| c.mate_len).max().unwrap_or(0)
        };
        out.mate_len = len.saturating_add(1);
    } else if dn == 0 {
        let (nomate, taint) = if is_or {
            let nomate = children.iter().map(|c| c.nomate).min().unwrap_or(INF_DEPTH);
            let taint = children.iter().map(|c| c.taint).min().unwrap_or(NO_TAINT);
            (nomate, taint)
        } else {
            // The defender's best refutation: a clean one if any, then the deepest.
            let c = children
                .iter()
                .filter(|c| c.dn == 0)
                .max_by_key(|c| ((c.taint == NO_TAINT) as u8, c.nomate, c.taint))
                .expect("a disproved child");
            (c.nomate, c.taint)
        };
        out.nomate = if nomate == INF_DEPTH { INF_DEPTH } else { nomate + 1 };
        out.taint = if taint != NO_TAINT && taint as usize >= ply { NO_TAINT } else { taint };
    }
    out
}

/// The board key after `m` and the attacker's hand after it.
#[inline(always)]
pub fn child_key(pos: &Position, m: Move, attacker: Color) -> (u64, Hand) {
    let us = pos.side_to_move();
    let to = m.to();
    let mut key = pos.board_key() ^ zobrist::SIDE_KEY ^ zobrist::psq(m.piece_after(), to.index());
    let mut hand = pos.hand(attacker);
    if m.is_drop() {
        if us == attacker {
            hand.remove(m.dropped());
        }
    } else {
        let from = m.from();
        key ^= zobrist::psq(pos.piece_on(from), from.index());
        let captured = pos.piece_on(to);
        if !captured.is_empty() {
            key ^= zobrist::psq(captured, to.index());
            if us == attacker {
                hand.add(captured.kind().unpromoted());
            }
        }
    }
    (key, hand)
}
