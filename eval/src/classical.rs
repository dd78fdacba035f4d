//! Kaname's static evaluation: material on the board and in hand (Apery's values), kept
//! incrementally by the search through `move_gain`, plus a small positional term (`positional`):
//! how hard each side's pieces press on the enemy king's surroundings and guard their own (the
//! idea of YaneuraOu's material-level "effect near the king" terms), and where the kings stand.
//! Its step-piece part is kept incrementally too (`step_pressure_delta`); the sliding part is
//! computed per node, unless the move cannot have changed it (`slider_pressure_kept`). The
//! interface is deliberately narrow (`evaluate`, `material`, `positional` and its two parts,
//! `move_gain`); the search reaches it only through `Evaluator`.

use crate::wide::{self, step, wide, Wide};
use engine::attacks::{
    bishop_attacks, bishop_pseudo, forward_ray, gold_attacks, king_attacks, knight_attacks, lance_attacks,
    pawn_attacks, rook_attacks, rook_pseudo, silver_attacks,
};
use engine::{Bitboard, Color, Move, Piece, PieceType, Position, Square, VariantId};

/// An evaluation in centipawn-like units (a pawn is 90).
pub type Value = i32;

/// Value of a piece on the board, by kind (Apery / YaneuraOu material values).
pub const fn piece_value(pt: PieceType) -> Value {
    match pt {
        PieceType::Pawn => 90,
        PieceType::Lance => 315,
        PieceType::Knight => 405,
        PieceType::Silver => 495,
        PieceType::Gold => 540,
        PieceType::Bishop => 855,
        PieceType::Rook => 990,
        PieceType::King => 0,
        PieceType::ProPawn | PieceType::ProLance | PieceType::ProKnight | PieceType::ProSilver => 540,
        PieceType::Horse => 945,
        PieceType::Dragon => 1395,
        PieceType::Elephant => ELEPHANT,
    }
}

/// Sho shogi's drunk elephant: 720, a third more than a gold (it steps seven ways to the gold's
/// six, and promotes into a second royal). Fitted by self-play matches (byoyomi 100, 100 games
/// each, `scripts/results/2026-11-24-sho-values`): 720 against the first estimate 560 scored
/// +27 -15 =58 (+42 Elo, 95% -2..+87). `KANAME_ELEPHANT_VALUE=<n>` when building overrides it,
/// for the matches that fit it.
pub const ELEPHANT: Value = build_value(option_env!("KANAME_ELEPHANT_VALUE"), 720);

/// Sho shogi: what a second royal (a prince beside the king) is worth to its side, as insurance
/// against mate (the king itself is worth nothing: losing the last royal is losing the game).
/// 900, kept after matches: 1500 lost to it (+11 -26 =63, -53 Elo, 95% -95..-12), and so did
/// 600 (with the elephant at 720; same results directory). `KANAME_SECOND_ROYAL_VALUE=<n>` when
/// building overrides it.
pub const SECOND_ROYAL: Value = build_value(option_env!("KANAME_SECOND_ROYAL_VALUE"), 900);

/// A value given when building (decimal digits, optionally after a minus sign), or `default`;
/// anything else stops the build, so that a mistyped override cannot go unnoticed.
const fn build_value(text: Option<&str>, default: Value) -> Value {
    let Some(text) = text else { return default };
    let bytes = text.as_bytes();
    let negative = !bytes.is_empty() && bytes[0] == b'-';
    let mut i = negative as usize;
    assert!(i < bytes.len() && bytes.len() <= 6, "a piece value override must be a number");
    let mut v: Value = 0;
    while i < bytes.len() {
        assert!(bytes[i].is_ascii_digit(), "a piece value override must be a number");
        v = v * 10 + (bytes[i] - b'0') as Value;
        i += 1;
    }
    if negative {
        -v
    } else {
        v
    }
}

/// Value of a piece held in hand (the same as on the board, for a hand kind).
pub const fn hand_value(pt: PieceType) -> Value {
    piece_value(pt)
}

/// Material balance from Black's point of view: board pieces plus hands (in Sho shogi, plus
/// `SECOND_ROYAL` for each side with two royals).
pub fn material(pos: &Position) -> Value {
    let mut v = 0;
    for pt in PieceType::ALL {
        let n = pos.pieces(Color::Black, pt).count() as Value - pos.pieces(Color::White, pt).count() as Value;
        v += n * piece_value(pt);
    }
    for pt in PieceType::HAND {
        v += (pos.hand(Color::Black).count(pt) as Value - pos.hand(Color::White).count(pt) as Value) * hand_value(pt);
    }
    if pos.variant() == VariantId::ShoShogi {
        let count = |c: Color, pt: PieceType| pos.pieces(c, pt).count() as Value;
        let e = PieceType::Elephant;
        v += (count(Color::Black, e) - count(Color::White, e)) * piece_value(e);
        let two = |c: Color| pos.pieces(c, PieceType::King).more_than_one() as Value;
        v += (two(Color::Black) - two(Color::White)) * SECOND_ROYAL;
    }
    v
}

/// How much `m` changes the material balance in favour of the side making it (to be called
/// before the move is made).
#[inline]
pub fn move_gain(pos: &Position, m: Move) -> Value {
    if m.is_drop() {
        return piece_value(m.dropped()) - hand_value(m.dropped());
    }
    if pos.variant() == VariantId::ShoShogi {
        return sho_move_gain(pos, m);
    }
    let captured = pos.piece_on(m.to());
    let mut gain = if captured.is_empty() { 0 } else { capture_gain(captured) };
    if m.is_promotion() {
        let after = m.piece_after().kind();
        gain += piece_value(after) - piece_value(after.unpromoted());
    }
    gain
}

/// `move_gain` in Sho shogi: a captured piece leaves the game (no hand value), taking one of two
/// royals takes the opponent's `SECOND_ROYAL`, and promoting the elephant gives the mover a
/// second royal (it has its king: only a side with an elephant and no prince promotes, and a
/// side never loses its last royal).
fn sho_move_gain(pos: &Position, m: Move) -> Value {
    let captured = pos.piece_on(m.to());
    let mut gain = match captured.kind_opt() {
        None => 0,
        Some(PieceType::King) => SECOND_ROYAL,
        Some(pt) => piece_value(pt),
    };
    if m.is_promotion() {
        let after = m.piece_after().kind();
        gain += if after == PieceType::King { SECOND_ROYAL } else { piece_value(after) } - piece_value(after.demoted());
    }
    gain
}

/// Material won by capturing `captured`: its value on the board plus its value in our hand.
#[inline]
pub fn capture_gain(captured: Piece) -> Value {
    let pt = captured.kind();
    piece_value(pt) + hand_value(pt.unpromoted())
}

/// The squares at Chebyshev distance exactly 2 from each square (the king's outer ring).
static OUTER_RING: [Bitboard; 81] = {
    let mut t = [Bitboard::EMPTY; 81];
    let mut i = 0;
    while i < 81 {
        let sq = Square::new(i as u8);
        let mut df = -2;
        while df <= 2 {
            let mut dr = -2;
            while dr <= 2 {
                if df == -2 || df == 2 || dr == -2 || dr == 2 {
                    if let Some(s) = sq.offset(df, dr) {
                        t[i] = t[i].or(Bitboard::from_square(s));
                    }
                }
                dr += 1;
            }
            df += 1;
        }
        i += 1;
    }
    t
};

/// Tunable weights of the positional term.
pub mod weights {
    use super::Value;
    /// Per attacked square next to the enemy king.
    pub const ATTACK_NEAR: Value = 16;
    /// Per attacked square two steps from the enemy king.
    pub const ATTACK_RING: Value = 6;
    /// Per defended square next to the own king.
    pub const DEFEND_NEAR: Value = 9;
    /// King placement by rank, from the far rank (0) to the home rank (8).
    pub const KING_RANK: [Value; 9] = [-20, -50, -80, -100, -95, -70, -35, -10, 0];
}

/// The positional term from Black's point of view (material excluded).
pub fn positional(pos: &Position) -> Value {
    step_pressure(pos) + slider_pressure(pos)
}

/// Attacked-square counts of one side in the three king zones.
#[derive(Default)]
struct ZoneCounts {
    near_enemy: i32,
    ring_enemy: i32,
    near_own: i32,
}

impl ZoneCounts {
    /// The weighted sum of the counts.
    #[inline(always)]
    fn value(&self) -> Value {
        weights::ATTACK_NEAR * self.near_enemy
            + weights::ATTACK_RING * self.ring_enemy
            + weights::DEFEND_NEAR * self.near_own
    }
}

/// The part of the positional term that depends only on where the kings and the step pieces
/// stand, not on the occupancy: king placement plus the zone counts of the one-step attacks
/// (pawns, knights, silvers, golds and promoted minors, and the steps horses and dragons add to
/// their slides; Sho shogi's elephant is not counted yet). From Black's point of view. The
/// search keeps it incrementally with `step_pressure_delta`.
pub fn step_pressure(pos: &Position) -> Value {
    side_step_pressure(pos, Color::Black) - side_step_pressure(pos, Color::White)
}

/// The rest of the positional term: the zone counts of the sliding attacks of lances,
/// bishops and rooks (horses and dragons included), which depend on the occupancy. From
/// Black's point of view.
pub fn slider_pressure(pos: &Position) -> Value {
    slider_pressure_and_reach(pos).0
}

/// `slider_pressure` and its reach: every square the sliders it counts attack (those not
/// skipped as missing the zones). Only the occupancy of these squares can change their
/// attacks, which lets the search keep the value across most moves (`slider_pressure_kept`).
#[inline]
pub fn slider_pressure_and_reach(pos: &Position) -> (Value, Bitboard) {
    let (black, black_reach) = side_slider_pressure(pos, Color::Black);
    let (white, white_reach) = side_slider_pressure(pos, Color::White);
    (black - white, black_reach | white_reach)
}

/// Piece kinds after a move that rule out keeping `slider_pressure`: sliders (a promoted
/// lance was one before the move) and kings (whose move shifts the zones), as bits by kind.
const SLIDER_OR_KING: u32 = 1 << PieceType::Lance as u32
    | 1 << PieceType::Bishop as u32
    | 1 << PieceType::Rook as u32
    | 1 << PieceType::King as u32
    | 1 << PieceType::ProLance as u32
    | 1 << PieceType::Horse as u32
    | 1 << PieceType::Dragon as u32;

/// Whether `slider_pressure` is the same after `m` (to be called before it is made), given
/// the `reach` of `slider_pressure_and_reach` for this position. It is when no slider or king
/// moves, is dropped or is captured, and the occupancy changes only outside the reach: the
/// zones, the set of sliders and each one's attacks all stay (a slider's attacks depend only
/// on the occupancy of the squares it attacks). A capture leaves its destination occupied.
#[inline]
pub fn slider_pressure_kept(pos: &Position, m: Move, reach: Bitboard) -> bool {
    if SLIDER_OR_KING >> m.piece_after().kind() as u32 & 1 != 0 {
        return false;
    }
    if m.is_drop() {
        return !reach.contains(m.to());
    }
    let captured = pos.piece_on(m.to());
    if captured.is_empty() {
        !reach.contains(m.to()) && !reach.contains(m.from())
    } else {
        SLIDER_OR_KING >> captured.kind() as u32 & 1 == 0 && !reach.contains(m.from())
    }
}

/// How much `m` changes `step_pressure` (to be called before the move is made), or `None`
/// for a king move, after which the zones move and the term must be computed afresh.
#[inline]
pub fn step_pressure_delta(pos: &Position, m: Move) -> Option<Value> {
    let after = m.piece_after();
    if m.is_drop() {
        return Some(step_contribution(pos, after, m.to()));
    }
    if after.kind() == PieceType::King {
        return None;
    }
    let captured = pos.piece_on(m.to());
    // Sho shogi: taking one of two royals can move the opponent's king square (to its prince).
    if captured.kind_opt() == Some(PieceType::King) {
        return None;
    }
    let mut d = step_contribution(pos, after, m.to()) - step_contribution(pos, pos.piece_on(m.from()), m.from());
    if !captured.is_empty() {
        d -= step_contribution(pos, captured, m.to());
    }
    Some(d)
}

/// What the one-step attacks of piece `pc` on `sq` add to `step_pressure` (Black's view).
#[inline(always)]
fn step_contribution(pos: &Position, pc: Piece, sq: Square) -> Value {
    let c = pc.color();
    let att = match pc.kind() {
        PieceType::Pawn => pawn_attacks(c, sq),
        PieceType::Knight => knight_attacks(c, sq),
        PieceType::Silver => silver_attacks(c, sq),
        PieceType::Lance | PieceType::Bishop | PieceType::Rook | PieceType::King | PieceType::Elephant => return 0,
        // The steps a horse or dragon adds to its slides (see `side_step_pressure`).
        PieceType::Horse => king_attacks(sq) & rook_pseudo(sq),
        PieceType::Dragon => king_attacks(sq) & bishop_pseudo(sq),
        _ => gold_attacks(c, sq),
    };
    let (near_enemy, ring_enemy, near_own) = king_zones(pos, c);
    if (att & (near_enemy | ring_enemy | near_own)).is_empty() {
        return 0;
    }
    let v = ZoneCounts {
        near_enemy: (att & near_enemy).count() as i32,
        ring_enemy: (att & ring_enemy).count() as i32,
        near_own: (att & near_own).count() as i32,
    }
    .value();
    if c == Color::Black {
        v
    } else {
        -v
    }
}

/// Side `c`'s three king zones: the squares next to the enemy king, the ring around those, and
/// the squares next to `c`'s own king. On a smaller board (Minishogi) only the squares on it:
/// there the 9x9 tables reach past the edge. A missing king (a tsume's attacker) has no zones:
/// nothing attacks or defends it, so pieces press on it nowhere.
#[inline(always)]
fn king_zones(pos: &Position, c: Color) -> (Bitboard, Bitboard, Bitboard) {
    let (Some(enemy), Some(own)) = (pos.king_square_opt(!c), pos.king_square_opt(c)) else {
        return king_zones_kingless(pos, c);
    };
    let zones = (king_attacks(enemy), OUTER_RING[enemy.index()], king_attacks(own));
    match pos.variant() {
        VariantId::Shogi => zones,
        v => {
            let board = v.desc().board;
            (zones.0 & board, zones.1 & board, zones.2 & board)
        }
    }
}

/// `king_zones` when a king is missing: empty zones for it, out of line (only tsume have it).
#[cold]
#[inline(never)]
fn king_zones_kingless(pos: &Position, c: Color) -> (Bitboard, Bitboard, Bitboard) {
    let board = pos.variant().desc().board;
    let (near_enemy, ring_enemy) = match pos.king_square_opt(!c) {
        Some(enemy) => (king_attacks(enemy) & board, OUTER_RING[enemy.index()] & board),
        None => (Bitboard::EMPTY, Bitboard::EMPTY),
    };
    let near_own = pos.king_square_opt(c).map_or(Bitboard::EMPTY, |own| king_attacks(own) & board);
    (near_enemy, ring_enemy, near_own)
}

/// `KING_RANK`'s index for `c`'s king: its rank counted from the far side, so that a king at
/// home is at the table's end (8). On a board with fewer ranks (Minishogi's five) Black's home
/// rank is not rank i, so its count starts further up the table, as White's does. A missing
/// king counts as at home (the table's 0): no placement term for a tsume's attacker.
#[inline(always)]
fn king_rank_index(pos: &Position, c: Color) -> usize {
    let Some(king) = pos.king_square_opt(c) else { return 8 };
    let r = king.relative_rank(c) as usize;
    match (pos.variant(), c) {
        (VariantId::Shogi, _) | (_, Color::White) => r,
        (v, Color::Black) => r + 9 - v.desc().ranks as usize,
    }
}

/// One side's king placement and the zone counts of its one-step attacks. The counts only add
/// up, so they are taken a direction at a time (all pieces with that step shifted at once);
/// horses and dragons count as a bishop or rook (in `side_slider_pressure`) plus the steps
/// the slide lacks, disjoint from it.
#[inline(always)]
fn side_step_pressure(pos: &Position, c: Color) -> Value {
    let (near_enemy, ring_enemy, near_own) = king_zones(pos, c);
    let (ne, re, no) = (wide(near_enemy), wide(ring_enemy), wide(near_own));
    let mut n = ZoneCounts::default();
    let mut add = |set: Wide| {
        n.near_enemy += wide::count(set & ne);
        n.ring_enemy += wide::count(set & re);
        n.near_own += wide::count(set & no);
    };
    let pawns = wide(pos.pieces(c, PieceType::Pawn));
    let knights = wide(pos.pieces(c, PieceType::Knight));
    let silvers = wide(pos.pieces(c, PieceType::Silver));
    let golds = wide(pos.golds() & pos.pieces_of(c));
    let horses = wide(pos.pieces(c, PieceType::Horse));
    let dragons = wide(pos.pieces(c, PieceType::Dragon));
    // Forward is towards rank a for Black.
    let f = if c == Color::Black { -1 } else { 1 };
    add(step(pawns | silvers | golds | horses, 0, f));
    for df in [-1, 1] {
        add(step(silvers | golds | dragons, df, f));
        add(step(golds | horses, df, 0));
        add(step(silvers | dragons, df, -f));
        add(step(knights, df, 2 * f));
    }
    add(step(golds | horses, 0, -f));
    weights::KING_RANK[king_rank_index(pos, c)] + n.value()
}

/// One side's zone counts of sliding attacks, and the union of the attacks counted. A slider
/// whose attacks on an empty board miss the zones is skipped without looking at the occupancy.
#[inline(always)]
fn side_slider_pressure(pos: &Position, c: Color) -> (Value, Bitboard) {
    let (near_enemy, ring_enemy, near_own) = king_zones(pos, c);
    let zones = near_enemy | ring_enemy | near_own;
    let occ = pos.occupied();
    let mut n = ZoneCounts::default();
    let mut reach = Bitboard::EMPTY;
    let mut add = |att: Bitboard| {
        reach |= att;
        let att = att & zones;
        if att.any() {
            n.near_enemy += (att & near_enemy).count() as i32;
            n.ring_enemy += (att & ring_enemy).count() as i32;
            n.near_own += (att & near_own).count() as i32;
        }
    };
    let ours = pos.pieces_of(c);
    for sq in pos.pieces(c, PieceType::Lance) {
        if (forward_ray(c, sq) & zones).any() {
            add(lance_attacks(c, sq, occ));
        }
    }
    for sq in pos.bishops_horses() & ours {
        if (bishop_pseudo(sq) & zones).any() {
            add(bishop_attacks(sq, occ));
        }
    }
    for sq in pos.rooks_dragons() & ours {
        if (rook_pseudo(sq) & zones).any() {
            add(rook_attacks(sq, occ));
        }
    }
    (n.value(), reach)
}

/// The static evaluation from the side to move's point of view.
pub fn evaluate(pos: &Position) -> Value {
    let v = material(pos) + positional(pos);
    if pos.side_to_move() == Color::Black {
        v
    } else {
        -v
    }
}

/// The positional term from the side to move's point of view.
#[inline]
pub fn positional_stm(pos: &Position) -> Value {
    let v = positional(pos);
    if pos.side_to_move() == Color::Black {
        v
    } else {
        -v
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_build_time_value_is_read_as_a_decimal_number() {
        assert_eq!(build_value(None, 560), 560);
        assert_eq!(build_value(Some("720"), 560), 720);
        assert_eq!(build_value(Some("-45"), 560), -45);
        assert_eq!(build_value(Some("0"), 900), 0);
    }

    #[test]
    #[should_panic(expected = "must be a number")]
    fn a_mistyped_build_time_value_is_refused() {
        build_value(Some("7OO"), 560);
    }

    #[test]
    fn start_position_is_balanced() {
        for v in VariantId::ALL {
            assert_eq!(evaluate(&Position::startpos_in(v)), 0, "{v}");
            assert_eq!(material(&Position::startpos_in(v)), 0, "{v}");
        }
    }

    /// The SFEN of the same position with colours exchanged and the board rotated.
    fn flipped(sfen: &str) -> String {
        let f: Vec<&str> = sfen.split(' ').collect();
        let swap = |c: char| if c.is_ascii_uppercase() { c.to_ascii_lowercase() } else { c.to_ascii_uppercase() };
        let ranks: Vec<String> = f[0]
            .split('/')
            .rev()
            .map(|r| {
                // Reverse the tokens of a rank (a token is "+X", "X" or a digit).
                let mut toks: Vec<String> = Vec::new();
                let mut plus = false;
                for ch in r.chars() {
                    if ch == '+' {
                        plus = true;
                        continue;
                    }
                    toks.push(if plus { format!("+{}", swap(ch)) } else { swap(ch).to_string() });
                    plus = false;
                }
                toks.reverse();
                toks.concat()
            })
            .collect();
        let side = if f[1] == "b" { "w" } else { "b" };
        let hands: String = if f[2] == "-" { "-".into() } else { f[2].chars().map(swap).collect() };
        format!("{} {side} {hands} {}", ranks.join("/"), f[3])
    }

    #[test]
    fn evaluation_is_symmetric_under_colour_flip() {
        for sfen in [
            "l7l/3s5/prnp2kp1/2p1Gppnp/1P7/PnPP1P3/3BP2PP/1S1G5/LN1K1G1+rL b SBG3ps 91",
            "l6nl/5+P1gk/2np1S3/p1p4Pp/3P2Sp1/1PPb2P1P/P5GS1/R8/LN4bKL w RGgsn5p 1",
        ] {
            let a = Position::from_sfen(sfen).unwrap();
            let b = Position::from_sfen(&flipped(sfen)).unwrap();
            assert_eq!(evaluate(&a), evaluate(&b), "{sfen} vs {}", flipped(sfen));
            assert_ne!(positional(&a), 0);
        }
        // A tsume without the attacker's king, either colour.
        for sfen in ["7nl/9/5S1kp/6R1s/9/7p1/9/9/9 b Gr2b3g2s3n3l16p 1", "4k4/9/4P4/9/9/9/9/9/9 b G2r2b3g4s4n4l17p 1"] {
            let a = Position::from_sfen(sfen).unwrap();
            let b = Position::from_sfen(&flipped(sfen)).unwrap();
            assert_eq!(evaluate(&a), evaluate(&b), "{sfen} vs {}", flipped(sfen));
        }
        // Minishogi: its kings' zones and home ranks on the 5x5 board.
        for sfen in ["2+Rgk/4+p/1s3/P1B2/KG3 w Srb 23", "k4/2S2/1G3/5/4K b P 1", "rbsg1/4k/5/P3K/1GSBR b - 1"] {
            let a = Position::from_sfen_in(VariantId::Minishogi, sfen).unwrap();
            let b = Position::from_sfen_in(VariantId::Minishogi, &flipped(sfen)).unwrap();
            assert_eq!(evaluate(&a), evaluate(&b), "{sfen} vs {}", flipped(sfen));
        }
    }

    /// The positional term as first written: piece by piece, each piece's full attack set.
    fn reference_positional(pos: &Position) -> Value {
        use engine::attacks::attacks_of;
        let occ = pos.occupied();
        let mut v = 0;
        for c in Color::ALL {
            let (near_enemy, ring_enemy, near_own) = king_zones(pos, c);
            let mut s = weights::KING_RANK[king_rank_index(pos, c)];
            // Kings and (Sho shogi's) elephants press on no zone in this term.
            let uncounted = pos.pieces(c, PieceType::King) | pos.pieces(c, PieceType::Elephant);
            for sq in pos.pieces_of(c).and_not(uncounted) {
                let att = attacks_of(c, pos.piece_on(sq).kind(), sq, occ);
                s += weights::ATTACK_NEAR * (att & near_enemy).count() as Value
                    + weights::ATTACK_RING * (att & ring_enemy).count() as Value
                    + weights::DEFEND_NEAR * (att & near_own).count() as Value;
            }
            v += if c == Color::Black { s } else { -s };
        }
        v
    }

    /// Busy positions to start random games from (and Minishogi's start), and tsume without the
    /// attacker's king (either colour).
    const PLAYOUT_STARTS: [(VariantId, &str); 10] = [
        (VariantId::Shogi, engine::START_SFEN),
        (VariantId::Shogi, "l6nl/5+P1gk/2np1S3/p1p4Pp/3P2Sp1/1PPb2P1P/P5GS1/R8/LN4bKL w RGgsn5p 1"),
        (VariantId::Shogi, "8l/1l+R2P3/p2pBG1pp/kps1p4/Nn1P2G2/P1P1P2PP/1PS6/1KSG3+r1/LN2+p3L w Sbgn3p 124"),
        (VariantId::Shogi, "l4S2l/4g1gs1/5p1p1/pr2N1pkp/4Gn3/PP3PPPP/2GPP4/1K7/L3r+s2L w BS2N5Pb 1"),
        (VariantId::Minishogi, "rbsgk/4p/5/P4/KGSBR b - 1"),
        (VariantId::ShoShogi, "lnsgkgsnl/1r2e2b1/ppppppppp/9/9/9/PPPPPPPPP/1B2E2R1/LNSGKGSNL b - 1"),
        (VariantId::ShoShogi, "lnsg1gsnl/1r2+e2b1/pppp1pppp/3E5/9/4k4/PPPPPPPPP/1B5R1/LNSGKGSNL b - 30"),
        (VariantId::Shogi, "7nl/9/5S1kp/6R1s/9/7p1/9/9/9 b Gr2b3g2s3n3l16p 1"),
        (VariantId::Shogi, "l6nl/5+P1g1/2np1S3/p1p4Pp/3P2Sp1/1PPb2P1P/P5GS1/R8/LN4bKL w RGgsn5p 1"),
        (VariantId::Minishogi, "rbsgk/4p/5/P4/1GSBR b - 1"),
    ];

    /// Seeded random playouts of up to 60 plies, `games` from each start: `visit` sees each
    /// position and the move about to be played from it (`None` when the playout ends there).
    /// They reach promoted pieces, kings in the open and crowded castles alike.
    fn playouts(games: usize, mut visit: impl FnMut(&Position, Option<engine::Move>)) {
        let mut seed = 0x2545_F491_4F6C_DD1Du64;
        for (variant, sfen) in PLAYOUT_STARTS {
            for _ in 0..games {
                let mut pos = Position::from_sfen_in(variant, sfen).unwrap();
                for _ in 0..60 {
                    let mut list = engine::MoveList::new();
                    engine::generate_legal(&pos, &mut list);
                    if list.is_empty() {
                        visit(&pos, None);
                        break;
                    }
                    seed ^= seed << 13;
                    seed ^= seed >> 7;
                    seed ^= seed << 17;
                    let m = list.as_slice()[(seed % list.len() as u64) as usize];
                    visit(&pos, Some(m));
                    pos.do_move(m);
                }
            }
        }
    }

    #[test]
    fn positional_matches_the_piece_by_piece_count() {
        playouts(20, |pos, _| assert_eq!(positional(pos), reference_positional(pos), "{}", pos.to_sfen()));
    }

    #[test]
    fn step_pressure_delta_matches_recomputation() {
        playouts(30, |pos, m| {
            let Some(m) = m else { return };
            let before = step_pressure(pos);
            let delta = step_pressure_delta(pos, m);
            let mut after = pos.clone();
            after.do_move(m);
            let royal_taken = pos.piece_on(m.to()).kind_opt() == Some(PieceType::King);
            assert_eq!(delta.is_none(), m.piece_after().kind() == PieceType::King || royal_taken);
            if let Some(d) = delta {
                assert_eq!(before + d, step_pressure(&after), "{}", after.to_sfen());
            }
        });
    }

    #[test]
    fn slider_pressure_kept_only_when_unchanged() {
        let (mut kept, mut moves) = (0, 0);
        playouts(30, |pos, m| {
            let Some(m) = m else { return };
            let (before, reach) = slider_pressure_and_reach(pos);
            assert_eq!(before, slider_pressure(pos));
            let mut after = pos.clone();
            after.do_move(m);
            moves += 1;
            if slider_pressure_kept(pos, m, reach) {
                kept += 1;
                assert_eq!(before, slider_pressure(&after), "{} {m}", pos.to_sfen());
            }
        });
        // The test means something only if both answers occur.
        assert!(kept > moves / 10 && kept < moves, "{kept} of {moves}");
    }

    #[test]
    fn pressure_on_the_enemy_king_counts() {
        // A gold next to the enemy king is worth more than the same gold far away.
        let near = Position::from_sfen("4k4/9/4G4/9/9/9/9/9/4K4 b - 1").unwrap();
        let far = Position::from_sfen("4k4/9/9/9/9/9/9/G8/4K4 b - 1").unwrap();
        assert!(positional(&near) > positional(&far));
    }

    /// A missing king (a tsume's attacker) has no zones and no placement term: a gold next to
    /// where it would stand defends nothing, and the enemy's pieces press on nothing there; the
    /// other king's zones count as before.
    #[test]
    fn a_missing_king_has_no_zones() {
        let hand = "b 2r2b3g4s4n4l18p 1";
        let pos = |board: &str| Position::from_sfen(&format!("{board} {hand}")).unwrap();
        // With a black king on 5i the gold next to it defends; without one it does not.
        let with_king = positional(&pos("4k4/9/9/9/9/9/9/4G4/4K4")) - positional(&pos("4k4/9/9/9/9/9/9/G8/4K4"));
        assert!(with_king > 0);
        assert_eq!(positional(&pos("4k4/9/9/9/9/9/9/4G4/9")), positional(&pos("4k4/9/9/9/9/9/9/G8/9")));
        // No king-rank term for the missing king, the present one's as ever.
        assert_eq!(king_rank_index(&pos("4k4/9/9/9/9/9/9/4G4/9"), Color::Black), 8);
        assert_eq!(king_zones(&pos("4k4/9/9/9/9/9/9/4G4/9"), Color::White).0, Bitboard::EMPTY);
        assert_eq!(king_zones(&pos("4k4/9/9/9/9/9/9/4G4/9"), Color::White).1, Bitboard::EMPTY);
        assert_eq!(king_zones(&pos("4k4/9/9/9/9/9/9/4G4/9"), Color::Black).0, king_attacks("5a".parse().unwrap()));
        // The gold next to the enemy king still presses on it.
        assert!(positional(&pos("4k4/9/4G4/9/9/9/9/9/9")) > positional(&pos("4k4/9/9/9/9/9/9/G8/9")));
    }

    #[test]
    fn move_gain_matches_material_difference_along_random_lines() {
        playouts(20, |pos, m| {
            let Some(m) = m else { return };
            let before = material(pos);
            let mut after = pos.clone();
            after.do_move(m);
            let sign = if pos.side_to_move() == Color::Black { 1 } else { -1 };
            assert_eq!(material(&after) - before, sign * move_gain(pos, m), "{} {m}", pos.to_sfen());
        });
    }

    #[test]
    fn move_gain_matches_material_difference() {
        let mut pos = Position::from_sfen("4k4/9/4p4/4P4/9/9/9/1B7/4K4 b Gp 1").unwrap();
        for text in ["5d5c+", "8h5e", "G*5b"] {
            let m = pos.parse_usi_move(text).unwrap();
            let before = material(&pos);
            let gain = move_gain(&pos, m);
            pos.do_move(m);
            assert_eq!(material(&pos) - before, gain, "{text}");
            pos.undo_move(m);
        }
        let m = pos.parse_usi_move("5d5c+").unwrap();
        assert_eq!(move_gain(&pos, m), 90 + 90 + 540 - 90);
    }
}
