//! The search's tunable parameters, in one table: the pruning margins, reductions and
//! history constants that `search.rs` reads. Each is a USI spin option named `Tune_<name>`
//! (accepted by `setoption` always, declared by `usi` only in tuning mode, so that a GUI's
//! option dialog is not filled with them), and `usi_tunables` lists them for shogiarena's SPSA
//! (`tunables_manifest`). The defaults are the values the search used before the table
//! existed, so `kaname bench` did not change when it was introduced.

/// Defines `Tune` (one `i32` field per parameter) and `TUNABLES` (its table) from one list,
/// so that a parameter cannot be in one and not the other.
macro_rules! tunables {
    ($($field:ident: $default:expr, $min:expr, $max:expr, $step:expr, $doc:literal;)*) => {
        /// The values of the tunable search parameters (see `TUNABLES` for their ranges).
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub struct Tune {
            $(#[doc = $doc] pub $field: i32,)*
        }

        impl Tune {
            /// The values the search uses unless told otherwise (a constant, so that
            /// `Options::DEFAULT` can hold it).
            pub const DEFAULT: Tune = Tune { $($field: $default,)* };
        }

        impl Default for Tune {
            fn default() -> Tune {
                Tune::DEFAULT
            }
        }

        /// Every tunable parameter, in declaration order.
        pub const TUNABLES: &[Tunable] = &[
            $(Tunable {
                name: stringify!($field),
                default: $default,
                min: $min,
                max: $max,
                step: $step,
                doc: $doc,
                get: |t| t.$field,
                set: |t, v| t.$field = v,
            },)*
        ];
    };
}

tunables! {
    rfp_depth: 8, 3, 16, 1, "Reverse futility applies below this depth.";
    rfp_margin: 140, 40, 300, 12, "Reverse futility margin per ply.";
    rfp_improving: 40, 0, 120, 8, "Reverse futility margin per ply taken off when improving.";
    razor_margin: 350, 100, 800, 30, "Razoring margin per ply (depth 1 and 2).";
    nmp_base: 3, 1, 6, 1, "Null-move reduction before the depth term.";
    nmp_depth_div: 3, 2, 6, 1, "Null-move reduction: one more ply per this many plies of depth.";
    nmp_eval_div: 200, 60, 500, 20, "Null-move reduction: one more ply per this much eval above beta (at most 3).";
    lmp_base: 3, 1, 8, 1, "Late move pruning: quiets beyond (this + depth^2) / (2 - improving) are skipped.";
    fut_depth: 8, 3, 14, 1, "Futility pruning of quiets applies up to this depth after the late move reduction.";
    fut_base: 120, 20, 300, 12, "Futility margin for quiets, constant part.";
    fut_margin: 110, 40, 250, 10, "Futility margin for quiets per ply of depth after the late move reduction.";
    hist_prune: 2000, 500, 6000, 250, "Quiets whose continuation history is below -this x depth are pruned.";
    hist_fut_div: 3000, 1000, 8000, 250, "Futility and exchange pruning judge a quiet one ply deeper per this much history (continuation plus twice butterfly).";
    cf_depth: 7, 2, 12, 1, "Capture futility applies below this depth after the late move reduction.";
    cf_base: 110, 20, 400, 12, "Capture futility margin, constant part (added to the capture's gain).";
    cf_margin: 100, 30, 300, 10, "Capture futility margin per ply of depth after the late move reduction.";
    see_quiet: 25, 5, 80, 4, "Quiets losing more than this x d^2 in exchange are pruned, d the depth after the late move reduction (d <= 6).";
    see_tactical: 120, 40, 300, 12, "Captures, pawn promotions and checks losing more than this x depth in exchange are pruned (depth <= 6).";
    lmr_base: 50, 0, 150, 10, "Late move reduction: constant part, in hundredths of a ply.";
    lmr_div: 210, 120, 350, 12, "Late move reduction: ln(depth) ln(moves) / (this / 100).";
    lmr_cut: 1, 0, 4, 1, "Late move reduction: plies more at expected cut nodes.";
    lmr_check: 1, 0, 3, 1, "Late move reduction: plies less for a move that gives check.";
    lmr_history_div: 10000, 3000, 24000, 700, "Late move reduction: one ply less per this much quiet history (twice butterfly plus continuation).";
    lmr_deeper: 48, 10, 150, 6, "Late move reduction: a re-search goes a ply deeper when the reduced search beat the best value by this much.";
    lmr_shallower: 9, 0, 60, 3, "Late move reduction: a re-search goes a ply shallower when the reduced search beat the best value by less than this.";
    iir_depth: 6, 3, 12, 1, "Internal iterative reduction: from this depth, a PV or cut node without a hash move is searched a ply shallower.";
    se_depth: 6, 4, 12, 1, "Singular extension: tried from this depth.";
    se_margin: 70, 16, 256, 12, "Singular extension: the bound is the hash value less this x depth / 64.";
    probcut_margin: 224, 80, 400, 16, "ProbCut: a capture beating beta by this much four plies shallower cuts the node.";
    probcut_improving: 60, 0, 150, 10, "ProbCut: margin taken off when improving.";
    qs_futility: 328, 100, 600, 24, "Quiescence futility: a non-recapture must lift the evaluation + this + its gain above alpha.";
    qs_see: 73, 0, 200, 8, "Quiescence: captures losing more than this in exchange are left out (once the line is not lost).";
    hist_bonus_mul: 130, 50, 300, 10, "History bonus per ply of depth.";
    hist_bonus_sub: 70, 0, 200, 10, "History bonus offset.";
    hist_bonus_max: 1600, 500, 4000, 150, "History bonus cap.";
    hist_malus_pct: 200, 50, 400, 20, "History malus of the moves tried before a cut, in percent of the bonus.";
    asp_delta: 20, 8, 60, 3, "First aspiration half-window.";
}

/// One tunable parameter of `Tune`.
#[derive(Clone, Copy)]
pub struct Tunable {
    /// The field name; the USI option is `Tune_<name>`.
    pub name: &'static str,
    /// The value the search uses unless told otherwise.
    pub default: i32,
    /// Lowest accepted value.
    pub min: i32,
    /// Highest accepted value.
    pub max: i32,
    /// SPSA's final perturbation (`c_end`): about a twentieth of the range.
    pub step: i32,
    /// What it does (one line).
    pub doc: &'static str,
    /// Reads the value from a `Tune`.
    pub get: fn(&Tune) -> i32,
    /// Writes the value into a `Tune`.
    pub set: fn(&mut Tune, i32),
}

impl std::fmt::Debug for Tunable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Tunable").field("name", &self.name).field("default", &self.default).finish()
    }
}

/// The USI option prefix of every tunable.
pub const OPTION_PREFIX: &str = "Tune_";

impl Tunable {
    /// The USI option name.
    pub fn option_name(&self) -> String {
        format!("{OPTION_PREFIX}{}", self.name)
    }

    /// The tunable whose option is `option` (case-insensitive, as USI option names are).
    pub fn by_option(option: &str) -> Option<&'static Tunable> {
        let prefix = option.get(..OPTION_PREFIX.len())?;
        if !prefix.eq_ignore_ascii_case(OPTION_PREFIX) {
            return None;
        }
        let rest = &option[OPTION_PREFIX.len()..];
        TUNABLES.iter().find(|t| t.name.eq_ignore_ascii_case(rest))
    }
}

/// The late move reduction table for `tune`: `(lmr_base + 100 ln(depth) ln(moves) / lmr_div) / 100`
/// plies (rounded down), indexed by depth and move number, both clamped to 1..=63.
pub fn reduction_table(tune: &Tune) -> Box<[[u8; 64]; 64]> {
    let mut t = Box::new([[0u8; 64]; 64]);
    let (base, div) = (tune.lmr_base as f64 / 100.0, tune.lmr_div.max(1) as f64 / 100.0);
    for (d, row) in t.iter_mut().enumerate().skip(1) {
        for (m, r) in row.iter_mut().enumerate().skip(1) {
            *r = (base + (d as f64).ln() * (m as f64).ln() / div).clamp(0.0, 63.0) as u8;
        }
    }
    t
}

/// shogiarena's tunable manifest (`shogiarena.usi_tunables.v1`), one JSON object on one line:
/// the answer to `usi_tunables` is `info string shogiarena_tunables_json <this>` and then
/// `usi_tunablesok`.
pub fn tunables_manifest() -> String {
    let items: Vec<String> = TUNABLES
        .iter()
        .map(|t| {
            format!(
                "{{\"id\":\"{}\",\"option\":\"{}\",\"value_type\":\"int\",\"encoding\":\"integer\",\
                 \"default\":{},\"min\":{},\"max\":{},\"schedule\":{{\"c_end\":{},\"r_end\":0.002}}}}",
                t.name,
                t.option_name(),
                t.default,
                t.min,
                t.max,
                t.step
            )
        })
        .collect();
    format!("{{\"schema_version\":\"shogiarena.usi_tunables.v1\",\"tunables\":[{}]}}", items.join(","))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_lie_within_their_ranges_and_names_are_unique() {
        let t = Tune::default();
        let mut names = std::collections::HashSet::new();
        for p in TUNABLES {
            assert!(p.min <= p.default && p.default <= p.max, "{p:?}");
            assert!(p.step > 0 && p.step <= p.max - p.min, "{p:?}");
            assert_eq!((p.get)(&t), p.default, "{p:?}");
            assert!(names.insert(p.name.to_ascii_lowercase()), "duplicate {}", p.name);
        }
    }

    #[test]
    fn set_and_get_reach_the_same_field() {
        for (i, p) in TUNABLES.iter().enumerate() {
            let mut t = Tune::default();
            (p.set)(&mut t, p.default + 1);
            for (j, q) in TUNABLES.iter().enumerate() {
                let want = if i == j { q.default + 1 } else { q.default };
                assert_eq!((q.get)(&t), want, "setting {} changed {}", p.name, q.name);
            }
        }
    }

    #[test]
    fn options_are_found_case_insensitively() {
        assert_eq!(Tunable::by_option("Tune_rfp_margin").unwrap().name, "rfp_margin");
        assert_eq!(Tunable::by_option("tune_RFP_MARGIN").unwrap().name, "rfp_margin");
        assert!(Tunable::by_option("rfp_margin").is_none());
        assert!(Tunable::by_option("Tune_nothing").is_none());
        assert!(Tunable::by_option("Tu").is_none());
    }

    #[test]
    fn the_default_reduction_table_is_the_old_formula() {
        let t = reduction_table(&Tune::default());
        for d in 1..64 {
            for m in 1..64 {
                let old = (0.5 + (d as f64).ln() * (m as f64).ln() / 2.1) as u8;
                assert_eq!(t[d][m], old, "depth {d} move {m}");
            }
        }
    }

    #[test]
    fn the_manifest_is_json_shogiarena_reads() {
        let m = tunables_manifest();
        assert!(m.starts_with("{\"schema_version\":\"shogiarena.usi_tunables.v1\",\"tunables\":[{\"id\":\"rfp_depth\""));
        assert_eq!(m.matches("\"option\":\"Tune_").count(), TUNABLES.len());
        assert!(!m.contains('\n'));
        // Balanced braces and brackets (a cheap well-formedness check; the end-to-end test
        // parses it with a JSON parser).
        assert_eq!(m.matches('{').count(), m.matches('}').count());
        assert_eq!(m.matches('[').count(), m.matches(']').count());
    }
}
