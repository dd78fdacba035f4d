//! The transposition table, shared by all search threads without locks.
//!
//! Each entry is two `AtomicU64`: the data word and the key XOR-ed with the data (Hyatt's
//! lockless hashing). A reader accepts an entry only if `key_xor ^ data == key`, so an entry
//! torn by two threads writing at once reads as a miss, never as a wrong hit. All accesses are
//! relaxed atomics: there are no data races, and a stale move is caught by `is_legal`.

use crate::types::*;
use engine::hugemem::ZeroedArray;
use std::sync::atomic::{AtomicU64, AtomicU8, Ordering::Relaxed};

/// How a stored value bounds the true score.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Bound {
    /// No bound (empty entry).
    None = 0,
    /// The true score is at most the value (fail low).
    Upper = 1,
    /// The true score is at least the value (fail high).
    Lower = 2,
    /// The value is exact.
    Exact = 3,
}

/// What a probe found.
#[derive(Clone, Copy, Debug)]
pub struct TtData {
    /// The stored move's low 16 bits (0 = none).
    pub move16: u16,
    /// The stored value, relative to the node (use `value_from_tt`).
    pub value: Value,
    /// The stored static evaluation.
    pub eval: Value,
    /// The depth of the search that stored it.
    pub depth: i32,
    /// How the value bounds the score.
    pub bound: Bound,
}

#[derive(Default)]
struct Entry {
    key_xor: AtomicU64,
    data: AtomicU64,
}

const BUCKET: usize = 4;
const DEPTH_OFFSET: i32 = -8;

/// One cache line (the table's memory starts on a huge-page boundary).
#[derive(Default)]
#[repr(align(64))]
struct Bucket {
    entries: [Entry; BUCKET],
}

const _: () = assert!(std::mem::size_of::<Bucket>() == 64);

/// The table.
pub struct TranspositionTable {
    buckets: ZeroedArray<Bucket>,
    generation: AtomicU8,
}

fn pack(d: &TtData, generation: u8) -> u64 {
    (d.move16 as u64)
        | ((d.value as i16 as u16 as u64) << 16)
        | ((d.eval as i16 as u16 as u64) << 32)
        | (((d.depth - DEPTH_OFFSET).clamp(0, 255) as u64) << 48)
        | ((d.bound as u64) << 56)
        | (((generation & 63) as u64) << 58)
}

fn unpack(w: u64) -> (TtData, u8) {
    let bound = match (w >> 56) & 3 {
        1 => Bound::Upper,
        2 => Bound::Lower,
        3 => Bound::Exact,
        _ => Bound::None,
    };
    (
        TtData {
            move16: w as u16,
            value: (w >> 16) as u16 as i16 as Value,
            eval: (w >> 32) as u16 as i16 as Value,
            depth: ((w >> 48) & 255) as i32 + DEPTH_OFFSET,
            bound,
        },
        (w >> 58) as u8,
    )
}

impl TranspositionTable {
    /// A table of about `mb` MiB.
    /// The memory comes as fresh zero pages from the OS, mapped at first use: `touch` maps
    /// them all at once.
    pub fn new(mb: usize) -> TranspositionTable {
        Self::try_new(mb).unwrap_or_else(|| panic!("cannot allocate a {mb} MiB hash table"))
    }

    /// As `new`, or `None` when the machine cannot map that much memory.
    pub fn try_new(mb: usize) -> Option<TranspositionTable> {
        // SAFETY: a Bucket is atomics only, for which all-zero bytes are a valid (empty) value.
        let buckets = unsafe { ZeroedArray::try_new(Self::buckets_for(mb))? };
        Some(TranspositionTable { buckets, generation: AtomicU8::new(0) })
    }

    /// The largest table of at most `mb` MiB that the machine can map: `mb`, or else the
    /// first of `mb / 2`, `mb / 4`, ... (down to 1 MiB) that it accepts.
    pub fn largest_up_to(mb: usize) -> TranspositionTable {
        // SAFETY: as in `try_new`.
        let buckets = unsafe { ZeroedArray::largest_up_to(Self::buckets_for(mb), Self::buckets_for(1)) };
        TranspositionTable { buckets, generation: AtomicU8::new(0) }
    }

    /// Buckets in `mb` MiB (saturating: a size no machine has is then refused by the mapping).
    fn buckets_for(mb: usize) -> usize {
        mb.max(1).saturating_mul(1 << 20) / std::mem::size_of::<Bucket>()
    }

    /// Writes into every memory page of the table (values unchanged), `threads` threads each
    /// taking a share, so that a fresh table's pages are mapped now (in `isready`) rather than
    /// by page faults during the next search.
    pub fn touch(&self, threads: usize) {
        let per_page = (4096 / std::mem::size_of::<Bucket>()).max(1);
        let share = self.share(threads);
        std::thread::scope(|s| {
            for part in self.buckets.chunks(share) {
                s.spawn(move || {
                    for b in part.iter().step_by(per_page) {
                        // A store, not an idempotent read-modify-write, which the compiler makes a load.
                        let e = &b.entries[0].data;
                        e.store(e.load(Relaxed), Relaxed);
                    }
                });
            }
        });
    }

    /// Empties the table in place, `threads` threads each zeroing a share (Stockfish's
    /// `TranspositionTable::clear`). The pages stay mapped: a fresh mapping instead would be
    /// instant here but fault its pages in during the next search, one 2 MiB page zeroed by the
    /// kernel per fault, and a fault that has to compact memory first stalled a byoyomi-1000
    /// search for 628 ms between two of its clock checks (session note 10).
    pub fn clear(&mut self, threads: usize) {
        let share = self.share(threads);
        std::thread::scope(|s| {
            for part in self.buckets.chunks_mut(share) {
                s.spawn(move || {
                    for e in part.iter_mut().flat_map(|b| b.entries.iter_mut()) {
                        *e.key_xor.get_mut() = 0;
                        *e.data.get_mut() = 0;
                    }
                });
            }
        });
        *self.generation.get_mut() = 0;
    }

    /// Buckets per thread when `threads` threads share the table (`touch`, `clear`).
    fn share(&self, threads: usize) -> usize {
        self.buckets.len().div_ceil(threads.max(1)).max(1)
    }

    /// Size in MiB.
    pub fn size_mb(&self) -> usize {
        (self.buckets.len() * std::mem::size_of::<Bucket>()) >> 20
    }

    /// Starts a new search: older entries become preferred victims.
    pub fn new_search(&self) {
        self.generation.fetch_add(1, Relaxed);
    }

    fn bucket(&self, key: u64) -> &Bucket {
        let i = ((key as u128 * self.buckets.len() as u128) >> 64) as usize;
        &self.buckets[i]
    }

    /// Starts loading `key`'s bucket into the cache: a hint, with no effect on any result.
    #[inline]
    pub fn prefetch(&self, key: u64) {
        #[cfg(target_arch = "x86_64")]
        {
            use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
            let p = self.bucket(key) as *const Bucket as *const i8;
            // SAFETY: a prefetch never faults nor changes memory; the address is a bucket's,
            // inside the table.
            unsafe { _mm_prefetch(p, _MM_HINT_T0) }
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = key;
    }

    /// Looks `key` up.
    pub fn probe(&self, key: u64) -> Option<TtData> {
        for e in &self.bucket(key).entries {
            let data = e.data.load(Relaxed);
            if e.key_xor.load(Relaxed) ^ data == key && data != 0 {
                return Some(unpack(data).0);
            }
        }
        None
    }

    /// Stores a result; keeps the old move when the new one is empty.
    pub fn store(&self, key: u64, mut d: TtData) {
        let gen = self.generation.load(Relaxed) & 63;
        let bucket = self.bucket(key);
        let mut victim = &bucket.entries[0];
        let mut victim_worth = i32::MAX;
        for e in &bucket.entries {
            let data = e.data.load(Relaxed);
            if e.key_xor.load(Relaxed) ^ data == key {
                let (old, _) = unpack(data);
                if d.move16 == 0 {
                    d.move16 = old.move16;
                }
                // Keep a deeper entry of this position unless the new one is exact.
                if d.bound != Bound::Exact && old.depth > d.depth + 4 && old.bound != Bound::None {
                    return;
                }
                victim = e;
                break;
            }
            let (old, old_gen) = unpack(data);
            let age = (gen.wrapping_sub(old_gen) & 63) as i32;
            let worth = if data == 0 { i32::MIN } else { old.depth - 8 * age };
            if worth < victim_worth {
                victim_worth = worth;
                victim = e;
            }
        }
        let data = pack(&d, gen);
        victim.data.store(data, Relaxed);
        victim.key_xor.store(key ^ data, Relaxed);
    }

    /// Permille of the sampled entries written during the current search.
    pub fn hashfull(&self) -> u32 {
        let gen = self.generation.load(Relaxed) & 63;
        let sample = self.buckets.len().min(250);
        let mut used = 0;
        for b in &self.buckets[..sample] {
            for e in &b.entries {
                let data = e.data.load(Relaxed);
                if data != 0 && unpack(data).1 == gen {
                    used += 1;
                }
            }
        }
        (used * 1000 / (sample * BUCKET).max(1)) as u32
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    fn data(m: u16, v: Value, depth: i32) -> TtData {
        TtData { move16: m, value: v, eval: -v, depth, bound: Bound::Exact }
    }

    #[test]
    fn store_and_probe_round_trip() {
        let tt = TranspositionTable::new(1);
        tt.store(0x1234_5678_9abc_def0, data(77, -31000, 12));
        let d = tt.probe(0x1234_5678_9abc_def0).unwrap();
        assert_eq!((d.move16, d.value, d.eval, d.depth, d.bound), (77, -31000, 31000, 12, Bound::Exact));
        assert!(tt.probe(0x1234_5678_9abc_def1).is_none());
    }

    #[test]
    fn clear_empties_every_bucket_in_place_with_any_number_of_threads() {
        for threads in [1, 2, 3, 7] {
            let mut tt = TranspositionTable::new(1);
            let keys: Vec<u64> = (1..=2000u64).map(|i| i.wrapping_mul(0x9E37_79B9_7F4A_7C15)).collect();
            for &k in &keys {
                tt.store(k, data(5, 100, 3));
            }
            tt.new_search();
            assert!(keys.iter().filter(|&&k| tt.probe(k).is_some()).count() > 1000);
            tt.clear(threads);
            assert!(keys.iter().all(|&k| tt.probe(k).is_none()), "{threads} threads left an entry");
            assert_eq!(tt.hashfull(), 0);
            assert_eq!(tt.generation.load(Relaxed), 0);
            tt.touch(threads);
            assert!(keys.iter().all(|&k| tt.probe(k).is_none()), "touch changed an entry");
        }
    }

    #[test]
    fn a_table_too_large_to_map_is_refused_or_halved() {
        assert!(TranspositionTable::try_new(usize::MAX >> 10).is_none());
        let t = TranspositionTable::largest_up_to(1 << 40);
        assert!(t.size_mb() >= 1 && t.size_mb() < 1 << 40 && t.size_mb().is_power_of_two());
        drop(t);
        assert_eq!(TranspositionTable::largest_up_to(3).size_mb(), 3);
    }

    #[test]
    fn concurrent_hammering_never_returns_a_foreign_entry() {
        // Every thread stores entries whose payload is derived from the key; a torn or mixed
        // entry would show up as a payload that does not match the key it was found under.
        let tt = Arc::new(TranspositionTable::new(1));
        let threads: Vec<_> = (0..4u64)
            .map(|t| {
                let tt = tt.clone();
                std::thread::spawn(move || {
                    let mut x = 0x9E37_79B9_7F4A_7C15u64 ^ t;
                    let mut hits = 0;
                    for _ in 0..400_000 {
                        x ^= x << 13;
                        x ^= x >> 7;
                        x ^= x << 17;
                        let key = x % 5000 * 0x1000_0000_0001 + 1;
                        let m = (key % 65521) as u16 | 1;
                        let v = (key % 20011) as Value - 10000;
                        tt.store(key, data(m, v, (key % 50) as i32));
                        if let Some(d) = tt.probe(key) {
                            assert_eq!(d.move16, m);
                            assert_eq!(d.value, v);
                            hits += 1;
                        }
                    }
                    hits
                })
            })
            .collect();
        for t in threads {
            assert!(t.join().unwrap() > 0);
        }
    }
}
