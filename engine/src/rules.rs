//! Game-end judgement: repetition (sennichite), the entering-king declaration (nyugyoku).

use crate::{Bitboard, Color, Move, Piece, PieceType, Position, Square, VariantId};

/// The repetition state of the current position, from the side to move's point of view.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Repetition {
    /// No repetition.
    None,
    /// Sennichite: a draw.
    Draw,
    /// The opponent repeated the position by checking on every move: the side to move wins.
    Win,
    /// The side to move repeated the position by checking on every move: it loses.
    Lose,
    /// The same board as earlier with more pieces in the side to move's hand.
    Superior,
    /// The same board as earlier with fewer pieces in the side to move's hand.
    Inferior,
}

/// Which entering-king rule is in force (YaneuraOu's `EnteringKingRule` option).
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub enum EnteringKingRule {
    /// Declarations are not allowed.
    None,
    /// CSA 24-point rule: 31 points or more wins (24-30 would be a draw by agreement).
    Csa24,
    /// The 24-point rule for handicap games: Black needs 31 points, White 31 less the points
    /// missing from the full set of pieces (the handicap: Kaname, like YaneuraOu and AobaZero,
    /// takes White for the side giving it).
    Csa24H,
    /// CSA 27-point rule: 28 points (sente) / 27 points (gote) win.
    #[default]
    Csa27,
    /// The 27-point rule for handicap games: Black needs 28 points, White 27 less the points
    /// missing from the full set of pieces.
    Csa27H,
    /// The try rule: a king that can move to the enemy king's starting square (5a for Black,
    /// 5i for White), free of own pieces and not attacked, wins by that move (the "try").
    Try,
}

impl EnteringKingRule {
    /// Every rule with its USI name (YaneuraOu's spelling), in YaneuraOu's order.
    pub const NAMES: [(EnteringKingRule, &'static str); 6] = [
        (EnteringKingRule::None, "NoEnteringKing"),
        (EnteringKingRule::Csa24, "CSARule24"),
        (EnteringKingRule::Csa24H, "CSARule24H"),
        (EnteringKingRule::Csa27, "CSARule27"),
        (EnteringKingRule::Csa27H, "CSARule27H"),
        (EnteringKingRule::Try, "TryRule"),
    ];

    /// The USI name (`CSARule27` ...). A `const fn` (hence the loop), so that a constant option
    /// table can spell a default rule.
    pub const fn name(self) -> &'static str {
        let mut i = 0;
        while i < Self::NAMES.len() {
            if Self::NAMES[i].0 as u8 == self as u8 {
                return Self::NAMES[i].1;
            }
            i += 1;
        }
        "NoEnteringKing"
    }

    /// The rule of a USI name, case-insensitively.
    pub fn from_name(name: &str) -> Option<EnteringKingRule> {
        Self::NAMES.iter().find(|(_, n)| n.eq_ignore_ascii_case(name)).map(|(r, _)| *r)
    }
}

/// The points of a full set of pieces (both sides, kings 1 each, bishops and rooks 5): what
/// the handicap rules measure a handicap against.
pub const FULL_SET_POINTS: i32 = 56;

impl Position {
    /// Judges repetition. Within the last `ply_from_root` plies (the search tree) the first
    /// recurrence counts; older history counts only on the fourth occurrence of the position,
    /// the one that ends the game. Perpetual check loses for the checking side; superior and
    /// inferior hands are reported only inside the search tree.
    pub fn repetition(&self, ply_from_root: usize) -> Repetition {
        let states = self.states();
        let n = states.len() - 1;
        let st = &states[n];
        let reach = (st.plies_from_null as usize).min(n);
        let us = self.side_to_move();
        let mut occurrences = 0;
        let mut i = 4;
        while i <= reach {
            let prev = &states[n - i];
            if prev.board_key == st.board_key {
                if prev.hand == st.hand {
                    occurrences += 1;
                    if i <= ply_from_root || occurrences >= 3 {
                        let span = i as u16;
                        return if st.continuous_check[(!us).index()] >= span {
                            Repetition::Win
                        } else if st.continuous_check[us.index()] >= span {
                            Repetition::Lose
                        } else {
                            Repetition::Draw
                        };
                    }
                } else if i <= ply_from_root {
                    if st.hand.is_superior_or_equal(prev.hand) {
                        return Repetition::Superior;
                    }
                    if prev.hand.is_superior_or_equal(st.hand) {
                        return Repetition::Inferior;
                    }
                }
            }
            i += 2;
        }
        Repetition::None
    }

    /// The entering-king points of `c`: pieces in the enemy camp (king excluded) and in hand,
    /// bishops and rooks (promoted or not) 5, others 1. Also returns how many pieces are in
    /// the camp.
    pub fn entering_points(&self, c: Color) -> (u32, u32) {
        let camp = Bitboard::zone(c);
        let ours = self.pieces_of(c) & camp & !self.pieces(c, PieceType::King);
        let big = ours & (self.bishops_horses() | self.rooks_dragons());
        let hand = self.hand(c);
        let hand_big = hand.count(PieceType::Bishop) + hand.count(PieceType::Rook);
        let hand_small = hand.total() - hand_big;
        (big.count() * 5 + (ours.count() - big.count()) + hand_big * 5 + hand_small, ours.count())
    }

    /// The points of every piece on the board and in both hands, kings 1, bishops and rooks
    /// (promoted or not) 5, others 1: `FULL_SET_POINTS` with a full set of pieces, less in a
    /// handicap game. (YaneuraOu's `update_entering_point` counts the same.)
    pub fn material_points(&self) -> i32 {
        let big = (self.bishops_horses() | self.rooks_dragons()).count();
        let mut p = self.occupied().count() + 4 * big;
        for c in [Color::Black, Color::White] {
            let h = self.hand(c);
            p += h.total() + 4 * (h.count(PieceType::Bishop) + h.count(PieceType::Rook));
        }
        p as i32
    }

    /// The points `c` needs to declare under a point rule (`None` under `NoEnteringKing` and the
    /// try rule). The handicap rules lower White's figure by the points missing from the full
    /// set (so a two-piece handicap, 10 points, asks 17 of White under `Csa27H`).
    pub fn declaration_points_needed(&self, c: Color, rule: EnteringKingRule) -> Option<i32> {
        let (black, white) = match rule {
            EnteringKingRule::None | EnteringKingRule::Try => return None,
            EnteringKingRule::Csa24 | EnteringKingRule::Csa24H => (31, 31),
            EnteringKingRule::Csa27 | EnteringKingRule::Csa27H => (28, 27),
        };
        let handicap = matches!(rule, EnteringKingRule::Csa24H | EnteringKingRule::Csa27H);
        Some(match c {
            Color::Black => black,
            Color::White if handicap => white - (FULL_SET_POINTS - self.material_points()),
            Color::White => white,
        })
    }

    /// The square a king of `c` tries to reach under the try rule: the enemy king's starting
    /// square, 5a for Black, 5i for White.
    pub fn try_square(c: Color) -> Square {
        match c {
            Color::Black => Square::from_coords(4, 0),
            Color::White => Square::from_coords(4, 8),
        }
    }

    /// The try of the side to move, if it has one: its king steps onto `try_square`, which holds
    /// no piece of its own and which no enemy piece attacks once the king has left its square
    /// (a capture there is a try too). In check or not: a king move out of check that reaches
    /// the square wins as well (YaneuraOu's `DeclarationWin` under `TryRule`).
    pub fn try_move(&self) -> Option<Move> {
        // The try rule is shogi's (on a 5x5 board 5a is a corner, not the king's square). With
        // a king missing (a tsume) there is no try: see `declaration_win`.
        if self.variant() != VariantId::Shogi || !self.has_king(Color::Black) || !self.has_king(Color::White) {
            return None;
        }
        let us = self.side_to_move();
        let target = Position::try_square(us);
        let from = self.king_square(us);
        if !crate::attacks::king_attacks(from).contains(target) || self.pieces_of(us).contains(target) {
            return None;
        }
        let occupied = self.occupied() & !Bitboard::from_square(from);
        if self.is_attacked(!us, target, occupied) {
            return None;
        }
        Some(Move::normal(from, target, Piece::new(us, PieceType::King)))
    }

    /// Whether the side to move wins now under `rule`: under a point rule, by declaring (king
    /// in the enemy camp, not in check, at least ten other pieces there, and enough points);
    /// under the try rule, by its try (`try_move`). Never when either side has no king (a
    /// tsume: see `declaration_win_slow`).
    #[inline]
    pub fn declaration_win(&self, rule: EnteringKingRule) -> bool {
        // Called at every node: the usual answer (king outside the enemy camp) comes first,
        // inlined; the counting stays out of line. (A king next to the try square stands in
        // the camp too.)
        // The king is looked up as a set, not a square: a side without a king (a tsume's
        // attacker) has none in the camp and cannot declare.
        let us = self.side_to_move();
        if rule == EnteringKingRule::None || (self.pieces(us, PieceType::King) & Bitboard::zone(us)).is_empty() {
            return false;
        }
        self.declaration_win_slow(rule)
    }

    /// `declaration_win` once the king is known to stand in the enemy camp.
    fn declaration_win_slow(&self, rule: EnteringKingRule) -> bool {
        // Declarations are shogi's only (docs/variants-plan.md, decision 5). Nor may a side
        // declare against an opponent without a king: such a position is a tsume (mate
        // problem), which knows no entering-king rule, and the defender, holding every spare
        // piece in hand, would often have the points to "win" a problem that has a solution
        // by running its king into the empty camp.
        if self.variant() != VariantId::Shogi || !self.has_king(!self.side_to_move()) {
            return false;
        }
        if rule == EnteringKingRule::Try {
            return self.try_move().is_some();
        }
        let us = self.side_to_move();
        let Some(needed) = self.declaration_points_needed(us, rule) else { return false };
        if !self.king_square(us).in_zone(us) || self.in_check() {
            return false;
        }
        let (points, in_camp) = self.entering_points(us);
        in_camp >= 10 && points as i32 >= needed
    }
}
