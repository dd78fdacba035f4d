//! Commands for people typed in a session: `d` (the board diagram) and `eval` (the static
//! evaluation and its terms).

use engine::{Color, PieceType, Position, Square};

fn hand_text(pos: &Position, c: Color) -> String {
    let hand = pos.hand(c);
    let mut s = String::new();
    for pt in PieceType::HAND_ORDER {
        let n = hand.count(pt);
        if n > 0 {
            if n > 1 {
                s.push_str(&n.to_string());
            }
            s.push(pt.letter());
        }
    }
    if s.is_empty() {
        s.push('-');
    }
    s
}

/// The `d` diagram: board (upper case = black/sente), hands, side to move, SFEN, key, the
/// kings' squares (`none` for a side without one), checkers; in a variant, its name first.
pub fn diagram(pos: &Position) -> Vec<String> {
    let desc = pos.variant().desc();
    let header: String = (1..=desc.files).rev().map(|f| format!("  {f}")).collect();
    let border = format!("+{}+", "-".repeat(3 * desc.files as usize));
    let mut lines = Vec::new();
    if pos.variant() != engine::VariantId::Shogi {
        lines.push(format!("Variant: {}", pos.variant()));
    }
    lines.extend([format!(" {header}"), border.clone()]);
    for rank in 0..desc.ranks {
        let mut row = String::from("|");
        for file in (0..desc.files).rev() {
            let sq = Square::from_coords(file, rank);
            let pc = pos.piece_on(sq);
            let t = if pos.princes().contains(sq) {
                pc.to_string().replace('K', "+E").replace('k', "+e")
            } else {
                pc.to_string()
            };
            row.push_str(&match t.len() {
                1 if t == "." => " . ".to_string(),
                1 => format!(" {t} "),
                _ => format!("{t} "),
            });
        }
        row.push_str(&format!("| {}", (b'a' + rank) as char));
        lines.push(row);
    }
    lines.push(border);
    lines.push(format!(
        "Hands: black (sente) {}, white (gote) {}",
        hand_text(pos, Color::Black),
        hand_text(pos, Color::White)
    ));
    lines.push(format!(
        "Side to move: {}, ply {}",
        match pos.side_to_move() {
            Color::Black => "black (sente)",
            Color::White => "white (gote)",
        },
        pos.game_ply()
    ));
    lines.push(format!("SFEN: {}", pos.to_sfen()));
    lines.push(format!("Key: {:016x}", pos.key()));
    let king = |c: Color| pos.king_square_opt(c).map_or("none".to_string(), |s| s.to_string());
    let mut kings = format!("Kings: black (sente) {}, white (gote) {}", king(Color::Black), king(Color::White));
    if !pos.has_king(Color::Black) || !pos.has_king(Color::White) {
        kings.push_str(" (a side without a king is never in check and cannot be mated: a tsume position's attacker)");
    }
    lines.push(kings);
    let checkers: Vec<String> = pos.checkers().into_iter().map(|s| s.to_string()).collect();
    lines.push(format!("Checkers: {}", if checkers.is_empty() { "-".to_string() } else { checkers.join(" ") }));
    lines
}

/// The `eval` lines: the classical evaluation (`eval::evaluate`) and its terms, then the
/// net's value when a net is given (the one `EvalKind net` would use).
pub fn eval(pos: &Position, net: Option<&eval::Net>, fv_scale: i32) -> Vec<String> {
    let black_view = |stm: i32| if pos.side_to_move() == Color::Black { stm } else { -stm };
    let stm = eval::evaluate(pos);
    let mut lines = vec![
        format!("Evaluation: {stm:+} (side to move's view), {:+} (black's view)", black_view(stm)),
        format!("Terms (black's view): material {:+}, positional {:+}", eval::material(pos), eval::positional(pos)),
    ];
    // The net knows standard shogi only.
    if let Some(net) = net.filter(|_| pos.variant() == engine::VariantId::Shogi) {
        let v = net.evaluate_full(pos, fv_scale);
        lines.push(format!("Net: {v:+} (side to move's view), {:+} (black's view)", black_view(v)));
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn diagram_of_the_start_position() {
        let d = diagram(&Position::startpos());
        assert_eq!(d[2], "| l  n  s  g  k  g  s  n  l | a");
        assert_eq!(d[3], "| .  r  .  .  .  .  .  b  . | b");
        assert!(d.iter().any(|l| l == &format!("SFEN: {}", engine::START_SFEN)));
        assert!(d.iter().any(|l| l == "Checkers: -"));
        assert!(d.iter().all(|l| l.is_ascii()));
    }

    #[test]
    fn diagram_of_the_minishogi_start() {
        let d = diagram(&Position::startpos_in(engine::VariantId::Minishogi));
        assert_eq!(d[0], "Variant: minishogi");
        assert_eq!(d[1], "   5  4  3  2  1");
        assert_eq!(d[2], "+---------------+");
        assert_eq!(d[3], "| r  b  s  g  k | a");
        assert_eq!(d[7], "| K  G  S  B  R | e");
        assert_eq!(d[8], "+---------------+");
        assert!(d.iter().any(|l| l == "SFEN: rbsgk/4p/5/P4/KGSBR b - 1"));
    }

    #[test]
    fn eval_lines() {
        let e = eval(&Position::startpos(), None, 16);
        assert_eq!(e[0], "Evaluation: +0 (side to move's view), +0 (black's view)");
        let p = Position::from_sfen("4k4/9/9/9/9/9/9/9/4K4 w 2P 1").unwrap();
        assert!(eval(&p, None, 16)[1].starts_with("Terms (black's view): material +180,"), "{:?}", eval(&p, None, 16));
        let net =
            eval::Net::Kaname(std::sync::Arc::new(eval::nnue::Network::from_quant(&eval::nnue::QuantNet::random(3))));
        let with_net = eval(&p, Some(&net), 16);
        assert_eq!(with_net.len(), 3);
        assert!(with_net[2].starts_with("Net: "), "{with_net:?}");
    }
}
