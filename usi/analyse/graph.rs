//! The evaluation graph of `kaname analyse`: Black's win rate after every ply, with the marked
//! moves drawn as coloured dots (mistakes and blunders labelled with their move).
//!
//! Drawn with the `plotters` crate's SVG backend: pure Rust with no system libraries (its
//! bitmap backend needs font libraries to draw text), and SVG opens in any browser and scales.

use crate::analyse::annotate::{Mark, Ply};
use plotters::prelude::*;

const SIZE: (u32, u32) = (960, 480);
const LINE: RGBColor = RGBColor(0x1f, 0x5f, 0xbf);

fn colour(mark: Mark) -> RGBColor {
    match mark {
        Mark::Dubious => RGBColor(0xe0, 0xb0, 0x00),
        Mark::Mistake => RGBColor(0xf0, 0x70, 0x00),
        Mark::Blunder => RGBColor(0xd0, 0x00, 0x00),
    }
}

/// The graph as SVG text. `start` is Black's win rate before the first analysed ply (its
/// ply number minus one), plotted as the line's first point.
pub fn svg(title: &str, start: Option<(usize, f64)>, plies: &[Ply]) -> Result<String, String> {
    let mut buf = String::new();
    draw(&mut buf, title, start, plies).map_err(|e| format!("drawing the graph: {e}"))?;
    Ok(buf)
}

fn draw(
    buf: &mut String,
    title: &str,
    start: Option<(usize, f64)>,
    plies: &[Ply],
) -> Result<(), Box<dyn std::error::Error>> {
    let mut points: Vec<(f64, f64)> = start.iter().map(|&(x, w)| (x as f64, w * 100.0)).collect();
    points.extend(plies.iter().map(|p| (p.ply as f64, p.winrate_black * 100.0)));
    let x0 = points.first().map_or(0.0, |p| p.0);
    let x1 = points.last().map_or(1.0, |p| p.0).max(x0 + 1.0);
    let root = SVGBackend::with_string(buf, SIZE).into_drawing_area();
    root.fill(&WHITE)?;
    let mut chart = ChartBuilder::on(&root)
        .caption(title, ("sans-serif", 20))
        .margin(16)
        .x_label_area_size(40)
        .y_label_area_size(56)
        .build_cartesian_2d(x0..x1, 0f64..100f64)?;
    chart
        .configure_mesh()
        .x_desc("ply")
        .y_desc("Black's win rate (%)")
        .y_labels(11)
        .max_light_lines(1)
        .x_label_formatter(&|x| format!("{x:.0}"))
        .y_label_formatter(&|y| format!("{y:.0}"))
        .draw()?;
    chart.draw_series(LineSeries::new([(x0, 50.0), (x1, 50.0)], BLACK.mix(0.5)))?;
    chart
        .draw_series(LineSeries::new(points, LINE.stroke_width(2)))?
        .label("Black's win rate")
        .legend(|(x, y)| PathElement::new([(x, y), (x + 16, y)], LINE.stroke_width(2)));
    for mark in [Mark::Dubious, Mark::Mistake, Mark::Blunder] {
        let c = colour(mark);
        let dots = plies
            .iter()
            .filter(|p| p.mark == Some(mark))
            .map(move |p| Circle::new((p.ply as f64, p.winrate_black * 100.0), 5, c.filled()));
        chart.draw_series(dots)?.label(mark.name()).legend(move |(x, y)| Circle::new((x + 8, y), 5, c.filled()));
    }
    let labels = plies.iter().filter(|p| matches!(p.mark, Some(Mark::Mistake | Mark::Blunder))).map(|p| {
        let text = format!("{} {}", p.ply, p.move_ja);
        EmptyElement::at((p.ply as f64, p.winrate_black * 100.0))
            + Text::new(text, (6, -18), ("sans-serif", 13).into_font().color(&BLACK))
    });
    chart.draw_series(labels)?;
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperRight)
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK.mix(0.5))
        .draw()?;
    root.present()?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analyse::annotate::{analyse_ply, Score, Searched};
    use engine::Position;

    #[test]
    fn an_svg_with_the_line_the_marks_and_the_labels() {
        let pos = Position::startpos();
        let m = pos.parse_usi_move("7g7f").unwrap();
        let s = |score| Searched { best: None, score, depth: 1, seldepth: 1, nodes: 1, pv: vec![], lines: vec![] };
        let p = analyse_ply(&pos, 1, m, &s(Score::Cp(0)), &s(Score::Cp(900)), [0.05, 0.10, 0.20]);
        assert_eq!(p.mark, Some(Mark::Blunder));
        let svg = svg("Kaname: ▲先手 - △後手", Some((0, 0.5)), &[p]).unwrap();
        assert!(svg.starts_with("<svg") && svg.trim_end().ends_with("</svg>"));
        assert!(svg.contains("▲先手") && svg.contains("<polyline") && svg.contains("1 ▲７六歩"), "{svg}");
        assert!(svg.contains("<circle"), "the blunder's dot");
        assert!(super::svg("empty", None, &[]).unwrap().starts_with("<svg"));
    }
}
