//! The move picker: hands the search one move at a time, best guesses first, generating each
//! stage only when the previous one is used up (a cutoff often comes before the quiets).

use crate::history::{from_index, Histories, PieceToHistory};
use engine::{
    generate, Bitboard, GenKind, Move, MoveSink, PieceType, Position, StackList, MAX_MOVES, PIECE_NB, SQUARE_COUNT,
};

/// A move with its ordering score.
#[derive(Clone, Copy)]
struct Scored {
    m: Move,
    score: i32,
}

/// Scored moves on the stack (the generator fills it through `MoveSink`, with score 0).
struct ScoredList(StackList<Scored, MAX_MOVES>);

impl ScoredList {
    fn push(&mut self, m: Move, score: i32) {
        self.0.push(Scored { m, score });
    }
}

#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Debug)]
enum Stage {
    TtMove,
    GenCaptures,
    GoodCaptures,
    Killer0,
    Killer1,
    Counter,
    GenQuiets,
    Quiets,
    BadCaptures,
    EvasionTt,
    GenEvasions,
    Evasions,
    QTt,
    QGenCaptures,
    QCaptures,
    Done,
}

/// Added to the history score of a quiet check that loses at most 75 in exchange (YaneuraOu's
/// ordering): checks are pruned like other quiets, so the sound ones come first.
const CHECK_BONUS: i32 = 16384;

/// Stands in for the continuation history of a ply without a move (the root's parents).
static NO_CONTINUATION: PieceToHistory = [[0; SQUARE_COUNT]; PIECE_NB];

/// The (piece, destination) of the last two plies' moves, which select the continuation-history
/// tables; looked up only when the quiets are scored, not at every call of `next`.
pub type ContKeys = [Option<(usize, usize)>; 2];

/// Picks moves in stages: TT move, good captures, killers, counter move, quiets, bad captures
/// (or, in check, the TT move then all evasions; in quiescence, captures only).
pub struct MovePicker {
    stage: Stage,
    tt_move: Move,
    refutations: [Move; 3],
    list: ScoredList,
    bad: ScoredList,
    cur: usize,
    bad_cur: usize,
    /// Once set, no more quiet moves are returned (late move pruning).
    pub skip_quiets: bool,
    /// Quiets scoring below this are left unsorted (they are rarely reached).
    sort_limit: i32,
    /// Selects the continuation histories that score the quiets.
    cont_keys: ContKeys,
}

/// What tells quickly whether a quiet move of the side to move gives check.
struct CheckInfo {
    /// Per kind, the squares from which it would check the enemy king.
    squares: [Bitboard; 16],
    /// Our pieces whose move could uncover a check.
    discoverers: Bitboard,
}

/// Orders the quiets: moves scoring at least `limit` first, best first; the rest stay in
/// generation order. Shogi quiet lists run to hundreds of drops, most never searched, so the
/// tail is not sorted; the head is sorted with an O(n log n) sort, because many moves share
/// a score (Stockfish's insertion sort turned quadratic here).
fn partial_insertion_sort(items: &mut [Scored], limit: i32) {
    let mut head = 0;
    for i in 0..items.len() {
        if items[i].score >= limit {
            items.swap(head, i);
            head += 1;
        }
    }
    items[..head].sort_unstable_by_key(|s| std::cmp::Reverse(s.score));
}

/// Move generation writes straight into the list (score 0 until scored), saving a copy.
impl MoveSink for ScoredList {
    #[inline(always)]
    fn push(&mut self, m: Move) {
        ScoredList::push(self, m, 0);
    }
}

impl MovePicker {
    /// A picker for the main search at `depth` (which decides how much of the quiets to sort).
    pub fn new(
        pos: &Position,
        tt_move: Move,
        killers: [Move; 2],
        counter: Move,
        depth: i32,
        cont_keys: ContKeys,
    ) -> MovePicker {
        let in_check = pos.in_check();
        let tt_ok = tt_move != Move::NONE && pos.is_legal(tt_move);
        let stage = match (in_check, tt_ok) {
            (true, true) => Stage::EvasionTt,
            (true, false) => Stage::GenEvasions,
            (false, true) => Stage::TtMove,
            (false, false) => Stage::GenCaptures,
        };
        let tt_move = if tt_ok { tt_move } else { Move::NONE };
        MovePicker::with_stage(stage, tt_move, [killers[0], killers[1], counter], -3000 * depth, cont_keys)
    }

    /// A picker for the quiescence search: captures and pawn promotions (evasions in check).
    pub fn new_qsearch(pos: &Position, tt_move: Move) -> MovePicker {
        let in_check = pos.in_check();
        let tt_ok = tt_move != Move::NONE && pos.is_legal(tt_move) && (in_check || is_tactical(pos, tt_move));
        let stage = match (in_check, tt_ok) {
            (true, true) => Stage::EvasionTt,
            (true, false) => Stage::GenEvasions,
            (false, true) => Stage::QTt,
            (false, false) => Stage::QGenCaptures,
        };
        MovePicker::with_stage(stage, if tt_ok { tt_move } else { Move::NONE }, [Move::NONE; 3], i32::MIN, [None; 2])
    }

    /// Built in one expression so the (large) picker is written in place, not copied.
    #[inline(always)]
    fn with_stage(
        stage: Stage,
        tt_move: Move,
        refutations: [Move; 3],
        sort_limit: i32,
        cont_keys: ContKeys,
    ) -> MovePicker {
        MovePicker {
            stage,
            tt_move,
            refutations,
            list: ScoredList(StackList::new()),
            bad: ScoredList(StackList::new()),
            cur: 0,
            bad_cur: 0,
            skip_quiets: false,
            sort_limit,
            cont_keys,
        }
    }

    /// The next move, or `None` when every stage is exhausted.
    pub fn next(&mut self, pos: &Position, hist: &Histories) -> Option<Move> {
        loop {
            match self.stage {
                Stage::TtMove | Stage::EvasionTt | Stage::QTt => {
                    self.stage = match self.stage {
                        Stage::TtMove => Stage::GenCaptures,
                        Stage::EvasionTt => Stage::GenEvasions,
                        _ => Stage::QGenCaptures,
                    };
                    return Some(self.tt_move);
                }
                Stage::GenCaptures | Stage::QGenCaptures => {
                    self.fill(pos, GenKind::Captures, |m| capture_score(pos, hist, m));
                    self.stage = if self.stage == Stage::GenCaptures { Stage::GoodCaptures } else { Stage::QCaptures };
                }
                Stage::GoodCaptures => match self.pick_best() {
                    Some(s) => {
                        if s.m == self.tt_move {
                            continue;
                        }
                        if pos.see_ge(s.m, -s.score / 40) {
                            return Some(s.m);
                        }
                        self.bad.push(s.m, s.score);
                    }
                    None => self.stage = Stage::Killer0,
                },
                Stage::Killer0 | Stage::Killer1 | Stage::Counter => {
                    let i = self.stage as usize - Stage::Killer0 as usize;
                    self.stage = match self.stage {
                        Stage::Killer0 => Stage::Killer1,
                        Stage::Killer1 => Stage::Counter,
                        _ => Stage::GenQuiets,
                    };
                    let m = self.refutations[i];
                    if m == Move::NONE || m == self.tt_move || self.refutations[..i].contains(&m) {
                        continue;
                    }
                    if pos.is_legal(m) && !is_tactical(pos, m) && !self.skip_quiets {
                        return Some(m);
                    }
                    self.refutations[i] = Move::NONE;
                }
                Stage::GenQuiets => {
                    {
                        let main = &hist.main[pos.side_to_move().index()];
                        // A missing continuation table reads as all zeros: the same sums, no test.
                        let [c0, c1] =
                            self.cont_keys.map(|k| k.map_or(&NO_CONTINUATION, |(pc, to)| hist.continuation(pc, to)));
                        let info = check_info(pos);
                        self.fill(pos, GenKind::Quiets, |m| {
                            let pc = m.piece_after().index();
                            let to = m.to().index();
                            main[from_index(m)][to] as i32
                                + c0[pc][to] as i32
                                + c1[pc][to] as i32
                                + CHECK_BONUS * (gives_check_with(&info, pos, m) && pos.see_ge(m, -75)) as i32
                        });
                        partial_insertion_sort(self.list.0.as_mut_slice(), self.sort_limit);
                    }
                    self.stage = Stage::Quiets;
                }
                Stage::Quiets => {
                    // A loop of its own: under late move pruning most quiets are passed over.
                    while self.cur < self.list.0.len() {
                        let m = self.list.0.as_mut_slice()[self.cur].m;
                        self.cur += 1;
                        // Late move pruning drops checks too: they are ordered early instead
                        // (`CHECK_BONUS`), and the mate-in-one probe runs first.
                        if m != self.tt_move && !self.refutations.contains(&m) && !self.skip_quiets {
                            return Some(m);
                        }
                    }
                    self.stage = Stage::BadCaptures;
                }
                Stage::BadCaptures => {
                    if self.bad_cur < self.bad.0.len() {
                        let m = self.bad.0.as_mut_slice()[self.bad_cur].m;
                        self.bad_cur += 1;
                        return Some(m);
                    }
                    self.stage = Stage::Done;
                }
                Stage::GenEvasions => {
                    let us = pos.side_to_move();
                    self.fill(pos, GenKind::All, |m| {
                        if pos.is_capture(m) {
                            (1 << 20) + capture_score(pos, hist, m)
                        } else {
                            hist.main[us.index()][from_index(m)][m.to().index()] as i32
                        }
                    });
                    self.stage = Stage::Evasions;
                }
                Stage::Evasions | Stage::QCaptures => match self.pick_best() {
                    Some(s) if s.m == self.tt_move => continue,
                    Some(s) => return Some(s.m),
                    None => self.stage = Stage::Done,
                },
                Stage::Done => return None,
            }
        }
    }

    fn fill(&mut self, pos: &Position, kind: GenKind, score: impl Fn(Move) -> i32) {
        self.list.0.clear();
        self.cur = 0;
        generate(pos, kind, &mut self.list);
        for s in self.list.0.as_mut_slice() {
            s.score = score(s.m);
        }
    }

    /// Selection: swaps the best remaining move to the front.
    fn pick_best(&mut self) -> Option<Scored> {
        let cur = self.cur;
        let items = self.list.0.as_mut_slice();
        if cur >= items.len() {
            return None;
        }
        let mut best = cur;
        for i in cur + 1..items.len() {
            if items[i].score > items[best].score {
                best = i;
            }
        }
        items.swap(cur, best);
        self.cur += 1;
        Some(items[cur])
    }
}

/// Whether quiet `m` gives check, testing first whether its destination is a checking square
/// for its kind: most quiets fail that at once.
#[inline]
fn gives_check_with(info: &CheckInfo, pos: &Position, m: Move) -> bool {
    let direct = info.squares[m.piece_after().kind().index()].contains(m.to());
    if m.is_drop() {
        return direct;
    }
    (direct || info.discoverers.contains(m.from())) && pos.gives_check(m)
}

/// The check information of the side to move: nothing checks an opponent without a king (a
/// tsume's attacker).
fn check_info(pos: &Position) -> CheckInfo {
    let us = pos.side_to_move();
    let Some(ksq) = pos.king_square_opt(!us) else {
        return CheckInfo { squares: [Bitboard::EMPTY; 16], discoverers: Bitboard::EMPTY };
    };
    let occ = pos.occupied();
    let mut squares = [Bitboard::EMPTY; 16];
    for pt in PieceType::ALL.into_iter().chain([PieceType::Elephant]) {
        squares[pt.index()] = engine::attacks::attacks_of(!us, pt, ksq, occ);
    }
    CheckInfo { squares, discoverers: pos.blockers_for_king(!us) & pos.pieces_of(us) }
}

/// Whether `m` belongs to the captures stage: a capture or a pawn push that promotes.
pub fn is_tactical(pos: &Position, m: Move) -> bool {
    pos.is_capture(m) || (m.is_promotion() && m.moved_kind() == PieceType::Pawn)
}

/// MVV plus capture history; pawn promotions by their gain.
fn capture_score(pos: &Position, hist: &Histories, m: Move) -> i32 {
    let captured = pos.piece_on(m.to());
    if captured.is_empty() {
        return eval::piece_value(PieceType::ProPawn) - eval::piece_value(PieceType::Pawn);
    }
    8 * eval::capture_gain(captured) + hist.capture_of(m, captured.kind()) / 16
}

#[cfg(test)]
mod tests {
    use super::*;
    use engine::MoveList;

    #[test]
    fn partial_sort_orders_the_good_moves_and_keeps_the_rest() {
        let mut items: Vec<Scored> =
            [5, -9000, 30, -100, 7, -20000].iter().map(|&score| Scored { m: Move::NONE, score }).collect();
        partial_insertion_sort(&mut items, -200);
        let scores: Vec<i32> = items.iter().map(|s| s.score).collect();
        assert_eq!(&scores[..4], &[30, 7, 5, -100]);
        assert!(scores[4..].contains(&-9000) && scores[4..].contains(&-20000));
    }

    fn all_picked(pos: &Position, tt: Move, killers: [Move; 2]) -> Vec<Move> {
        let hist = Histories::default();
        let mut p = MovePicker::new(pos, tt, killers, Move::NONE, 1, [None; 2]);
        let mut v = Vec::new();
        while let Some(m) = p.next(pos, &hist) {
            v.push(m);
        }
        v
    }

    #[test]
    fn picker_yields_every_legal_move_exactly_once() {
        for sfen in [
            engine::START_SFEN,
            "l6nl/5+P1gk/2np1S3/p1p4Pp/3P2Sp1/1PPb2P1P/P5GS1/R8/LN4bKL w RGgsn5p 1",
            "8l/1l+R2P3/p2pBG1pp/kps1p4/Nn1P2G2/P1P1P2PP/1PS6/1KSG3+r1/LN2+p3L w Sbgn3p 124",
            "ln2+r1r2/5s+Pkl/3+B1p1p1/p4B2p/2P6/P6PP/1PNP1P3/2G3SK1/L4G1NL w 2GSN3Ps3p 76",
        ] {
            let pos = Position::from_sfen(sfen).unwrap();
            let mut legal = MoveList::new();
            generate(&pos, GenKind::All, &mut legal);
            let mut expect: Vec<u32> = legal.iter().map(|m| m.raw()).collect();
            expect.sort();
            // A legal TT move, a legal killer, and an illegal killer from another position.
            let tt = *legal.iter().last().unwrap();
            let killers = [legal.as_slice()[legal.len() / 2], Move::from_raw(0x0001_0203)];
            let mut got: Vec<u32> = all_picked(&pos, tt, killers).iter().map(|m| m.raw()).collect();
            got.sort();
            assert_eq!(got, expect, "{sfen}");
        }
    }
}
