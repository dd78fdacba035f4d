//! Search values and their mate encoding.

pub use eval::Value;

/// The deepest ply the search reaches.
pub const MAX_PLY: usize = 246;

/// Stack of every search thread: the recursion keeps a frame per ply (move lists on the
/// stack), MAX_PLY deep, plus the df-pn solver's recursion.
pub const SEARCH_STACK_BYTES: usize = 64 << 20;
/// The deepest iteration a search starts (room is left below `MAX_PLY` for extensions and
/// quiescence).
pub const MAX_DEPTH: i32 = MAX_PLY as i32 - 10;
/// A mate at the root.
pub const VALUE_MATE: Value = 32000;
/// Larger than any score.
pub const VALUE_INFINITE: Value = 32001;
/// No value (e.g. static eval while in check).
pub const VALUE_NONE: Value = 32002;
/// Scores at least this are mates found within the ply limit.
pub const VALUE_MATE_IN_MAX_PLY: Value = VALUE_MATE - MAX_PLY as Value;
/// Same board as earlier with more in hand: clearly good, but no mate.
pub const VALUE_SUPERIOR: Value = 20000;

/// The score of delivering mate `ply` plies from the root.
#[inline]
pub const fn mate_in(ply: usize) -> Value {
    VALUE_MATE - ply as Value
}

/// The score of being mated `ply` plies from the root.
#[inline]
pub const fn mated_in(ply: usize) -> Value {
    -VALUE_MATE + ply as Value
}

/// Converts a score relative to the root into one relative to the current node for the TT.
#[inline]
pub const fn value_to_tt(v: Value, ply: usize) -> Value {
    if v >= VALUE_MATE_IN_MAX_PLY {
        v + ply as Value
    } else if v <= -VALUE_MATE_IN_MAX_PLY {
        v - ply as Value
    } else {
        v
    }
}

/// The inverse of `value_to_tt`.
#[inline]
pub const fn value_from_tt(v: Value, ply: usize) -> Value {
    if v == VALUE_NONE {
        VALUE_NONE
    } else if v >= VALUE_MATE_IN_MAX_PLY {
        v - ply as Value
    } else if v <= -VALUE_MATE_IN_MAX_PLY {
        v + ply as Value
    } else {
        v
    }
}
