//! The scripts that decide what issue 13's matches play: the USI adapters that opponents run
//! through, each rewriting one kind of line between the runner and an engine (`go` clocks the
//! engine cannot take or misreads, the `ponder` move of its `bestmove`), and the selection of the
//! openings a match split across machines has left to play; and the replay of the clocks a
//! match's engines spent (`clock_use.py`); and what a GUI records for each move of a game
//! (`gui_last_lines.py`); and each side's speed, depth and "seen first" from a match's records
//! (`game_stats.py`); and where the winner's search saw more in a loser's games
//! (`lost_games.py`); and the total of a match played in parts (`combine_runs.py`, which also
//! reads a part's `games.txt`); and the configuration a match runs under (`sprt.py`:
//! per-engine node limits, `--tune` for `Tune_*` options). A broken one would silently change
//! what a published result measured or says. Their `--self-test`s (standard library only, but
//! `sprt.py`'s needs PyYAML) run here, so CI checks them. Needs `python3` on `PATH`, as every
//! machine here has.

use std::path::Path;
use std::process::Command;

/// Runs `python3 scripts/NAME --self-test` and asserts it passes, showing its report otherwise.
fn self_test(name: &str) {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts").join(name);
    let out = Command::new("python3")
        .arg(&script)
        .arg("--self-test")
        .output()
        .unwrap_or_else(|e| panic!("cannot run python3 {}: {e}", script.display()));
    let report = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && report.contains("checks passed"),
        "{name} --self-test failed ({}):\n{report}{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn the_no_increment_adapter_passes_its_self_test() {
    self_test("usi_no_increment.py");
}

#[test]
fn the_clock_swapping_adapter_passes_its_self_test() {
    self_test("usi_swap_clocks.py");
}

#[test]
fn the_no_ponder_adapter_passes_its_self_test() {
    self_test("usi_no_ponder.py");
}

#[test]
fn the_remaining_openings_selection_passes_its_self_test() {
    self_test("remaining_openings.py");
}

#[test]
fn the_clock_replay_passes_its_self_test() {
    self_test("clock_use.py");
}

#[test]
fn the_gui_last_line_classification_passes_its_self_test() {
    self_test("gui_last_lines.py");
}

#[test]
fn the_match_record_statistics_pass_their_self_test() {
    self_test("game_stats.py");
}

#[test]
fn the_lost_game_reading_passes_its_self_test() {
    self_test("lost_games.py");
}

#[test]
fn the_run_combination_passes_its_self_test() {
    self_test("combine_runs.py");
}

/// `sprt.py` writes shogiarena's configuration with PyYAML, which shogiarena installs; a
/// machine without it (a fresh one, before `pip install shogiarena`) cannot run a match
/// either, and says so here rather than failing.
#[test]
fn the_match_configuration_passes_its_self_test() {
    let has_yaml = Command::new("python3").args(["-c", "import yaml"]).status().is_ok_and(|s| s.success());
    if !has_yaml {
        eprintln!("SKIPPED: sprt.py --self-test needs PyYAML (pip install shogiarena brings it)");
        return;
    }
    self_test("sprt.py");
}
