//! Game-end judgement: repetition (sennichite), the entering-king declaration (nyugyoku).

use crate::{Bitboard, Color, PieceType, Position};

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

/// Which entering-king declaration rule is in force.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub enum EnteringKingRule {
    /// Declarations are not allowed.
    None,
    /// CSA 24-point rule: 31 points or more wins (24-30 would be a draw by agreement).
    Csa24,
    /// CSA 27-point rule: 28 points (sente) / 27 points (gote) win.
    #[default]
    Csa27,
}

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

    /// Whether the side to move may declare an entering-king win now under `rule`: king in the
    /// enemy camp, not in check, at least ten other pieces there, and enough points.
    #[inline]
    pub fn declaration_win(&self, rule: EnteringKingRule) -> bool {
        // Called at every node: the usual answer (king outside the enemy camp) comes first,
        // inlined; the counting stays out of line.
        let us = self.side_to_move();
        if rule == EnteringKingRule::None || !Bitboard::zone(us).contains(self.king_square(us)) {
            return false;
        }
        self.declaration_win_slow(rule)
    }

    /// `declaration_win` once the king is known to stand in the enemy camp.
    fn declaration_win_slow(&self, rule: EnteringKingRule) -> bool {
        let us = self.side_to_move();
        let needed = match rule {
            EnteringKingRule::None => return false,
            EnteringKingRule::Csa24 => 31,
            EnteringKingRule::Csa27 => {
                if us == Color::Black {
                    28
                } else {
                    27
                }
            }
        };
        if !self.king_square(us).in_zone(us) || self.in_check() {
            return false;
        }
        let (points, in_camp) = self.entering_points(us);
        in_camp >= 10 && points >= needed
    }
}
