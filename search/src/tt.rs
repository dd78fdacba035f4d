//! The transposition table, shared by all search threads without locks.
//!
//! Each entry is two `AtomicU64`: the data word and the key XOR-ed with the data (Hyatt's
//! lockless hashing). A reader accepts an entry only if `key_xor ^ data == key`, so an entry
//! torn by two threads writing at once reads as a miss, never as a wrong hit. All accesses are
//! relaxed atomics: there are no data races, and a stale move is caught by `is_legal`.

use crate::types::*;
use engine::hugemem::ZeroedArray;
use std::sync::atomic::{AtomicU64, AtomicU8, AtomicUsize, Ordering::Relaxed};
use std::sync::Arc;
use std::time::Instant;

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
    /// Buckets in use: all of them, or while the table's pages are still being mapped
    /// (`touch`, `map_rest_in_background`) the mapped part, so that no search waits on a page
    /// fault. Only grows.
    live: AtomicUsize,
    /// Blocks (`BLOCK_BUCKETS` each) from the start whose pages are mapped.
    mapped_blocks: AtomicUsize,
}

/// Buckets per block of the table mapped at once: one 2 MiB huge page.
const BLOCK_BUCKETS: usize = (2 << 20) / std::mem::size_of::<Bucket>();

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
        Some(TranspositionTable::from_buckets(buckets))
    }

    /// The largest table of at most `mb` MiB that the machine can map: `mb`, or else the
    /// first of `mb / 2`, `mb / 4`, ... (down to 1 MiB) that it accepts.
    pub fn largest_up_to(mb: usize) -> TranspositionTable {
        // SAFETY: as in `try_new`.
        let buckets = unsafe { ZeroedArray::largest_up_to(Self::buckets_for(mb), Self::buckets_for(1)) };
        TranspositionTable::from_buckets(buckets)
    }

    /// A table over `buckets`, all live (as if mapped: fresh pages are mapped at first use).
    fn from_buckets(buckets: ZeroedArray<Bucket>) -> TranspositionTable {
        let live = AtomicUsize::new(buckets.len());
        TranspositionTable { buckets, generation: AtomicU8::new(0), live, mapped_blocks: AtomicUsize::new(0) }
    }

    /// Buckets in `mb` MiB (saturating: a size no machine has is then refused by the mapping).
    fn buckets_for(mb: usize) -> usize {
        mb.max(1).saturating_mul(1 << 20) / std::mem::size_of::<Bucket>()
    }

    /// Writes into every memory page of the table (values unchanged), `threads` threads taking
    /// 2 MiB blocks in order, so that a fresh table's pages are mapped now (in `isready`) rather
    /// than by page faults during the next search; but not after `deadline`. Then only the
    /// mapped part of the table is used (`live`) until `map_rest_in_background` has mapped the
    /// rest. Whether every page is mapped.
    ///
    /// Why the deadline: a page's first touch costs what the OS (or, in a virtual machine, the
    /// host) makes it cost. On our 2-core VM, memory the guest had never used came at 0.37 GB/s
    /// (a 16 GiB table: 40 s before `readyok`, issue 66), reused memory at 15 GB/s. A GUI waits
    /// for `readyok`, and a `stop` for a `go` that resized the table, a second or two at most.
    /// Why not leave the rest to fault in during the search: with an 11 GiB table so, a search
    /// at byoyomi 1000 ran at 500-1,200 nodes/s instead of 1.3 M and took up to 2.96 s.
    pub fn touch(&self, threads: usize, deadline: Instant) -> bool {
        let blocks = self.buckets.len().div_ceil(BLOCK_BUCKETS);
        if self.mapped_blocks.load(Relaxed) == 0 {
            // The first block whatever the clock: the least a table uses (`grow_live`), and
            // every block in use must be mapped before the search writes into it, for the
            // mapping thread only writes beyond the part in use.
            self.touch_block(0);
            self.mapped_blocks.fetch_max(1, Relaxed);
        }
        let next = AtomicUsize::new(self.mapped_blocks.load(Relaxed));
        std::thread::scope(|s| {
            for _ in 0..threads.max(1) {
                s.spawn(|| {
                    // Every block claimed is finished: the clock is read before claiming.
                    while Instant::now() < deadline {
                        let i = next.fetch_add(1, Relaxed);
                        if i >= blocks {
                            return;
                        }
                        self.touch_block(i);
                    }
                });
            }
        });
        let reached = next.into_inner().min(blocks);
        let mapped = self.mapped_blocks.fetch_max(reached, Relaxed).max(reached);
        self.grow_live(mapped);
        mapped == blocks
    }

    /// Writes once into each 4 KiB page of block `i` (values unchanged).
    fn touch_block(&self, i: usize) {
        let per_page = (4096 / std::mem::size_of::<Bucket>()).max(1);
        let end = ((i + 1) * BLOCK_BUCKETS).min(self.buckets.len());
        for b in self.buckets[i * BLOCK_BUCKETS..end].iter().step_by(per_page) {
            // A store, not an idempotent read-modify-write, which the compiler makes a load.
            let e = &b.entries[0].data;
            e.store(e.load(Relaxed), Relaxed);
        }
    }

    /// Uses the first `mapped` blocks: the whole table once all are mapped; else, the first time
    /// pages are left unmapped, the mapped part (at least the first block), and then the mapped part
    /// whenever it is at least twice the part in use (each change of size moves every key to
    /// another bucket, so it is made seldom).
    fn grow_live(&self, mapped: usize) {
        let len = self.buckets.len();
        let mapped_buckets = (mapped * BLOCK_BUCKETS).min(len);
        let live = self.live.load(Relaxed);
        // `live == len` short of a full mapping: a fresh table, never touched before.
        if mapped_buckets == len || live == len || mapped_buckets >= 2 * live {
            self.live.store(mapped_buckets, Relaxed);
        }
    }

    /// Whether the whole table is in use: every page mapped by `touch`, or never touched (a
    /// fresh mapping, its pages mapped at first use).
    pub fn fully_mapped(&self) -> bool {
        self.live.load(Relaxed) == self.buckets.len()
    }

    /// Maps the pages `touch` left, one block after another on one background thread of the
    /// lowest priority, growing the part in use as it goes; stops when the table is dropped.
    pub fn map_rest_in_background(table: &Arc<TranspositionTable>) {
        if table.fully_mapped() {
            return;
        }
        let weak = Arc::downgrade(table);
        std::thread::Builder::new()
            .name("tt-map".into())
            .spawn(move || {
                engine::hugemem::lower_this_threads_priority();
                while let Some(tt) = weak.upgrade() {
                    if tt.touch(1, Instant::now() + std::time::Duration::from_millis(20)) {
                        return;
                    }
                }
            })
            .expect("spawn table mapping thread");
    }

    /// Empties the part of the table in use in place, `threads` threads each zeroing a share
    /// (Stockfish's `TranspositionTable::clear`); the rest was never written. The pages stay
    /// mapped: a fresh mapping instead would be instant here but fault its pages in during the
    /// next search, one 2 MiB page zeroed by the kernel per fault, and a fault that has to
    /// compact memory first stalled a byoyomi-1000 search for 628 ms between two of its clock
    /// checks (session note 10). Takes `&self`: the thread still mapping the rest of the table
    /// (`map_rest_in_background`) works beyond the part in use and goes on.
    pub fn clear(&self, threads: usize) {
        let live = &self.buckets[..self.live.load(Relaxed)];
        std::thread::scope(|s| {
            for part in live.chunks(live.len().div_ceil(threads.max(1)).max(1)) {
                s.spawn(move || {
                    for e in part.iter().flat_map(|b| b.entries.iter()) {
                        e.key_xor.store(0, Relaxed);
                        e.data.store(0, Relaxed);
                    }
                });
            }
        });
        self.generation.store(0, Relaxed);
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
        let i = ((key as u128 * self.live.load(Relaxed) as u128) >> 64) as usize;
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
        let sample = self.live.load(Relaxed).min(250);
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
            let tt = TranspositionTable::new(1);
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
            assert!(tt.touch(threads, Instant::now() + std::time::Duration::from_secs(60)));
            assert!(keys.iter().all(|&k| tt.probe(k).is_none()), "touch changed an entry");
            assert!(tt.touch(threads, Instant::now()), "a mapped table stays mapped");
        }
    }

    /// A table whose pages `touch` could not all map by its deadline uses only its mapped part
    /// (never less than a block) and grows to the whole as the background thread maps the rest;
    /// stores and probes work at every size.
    #[test]
    fn a_partly_mapped_table_uses_its_mapped_part_until_the_rest_is_mapped() {
        let tt = Arc::new(TranspositionTable::new(64));
        assert!(tt.fully_mapped());
        assert!(!tt.touch(2, Instant::now()), "a touch past its deadline maps only the first block");
        assert!(!tt.fully_mapped());
        assert_eq!(tt.live.load(Relaxed), BLOCK_BUCKETS, "one block in use");
        let keys: Vec<u64> = (1..=500u64).map(|i| i.wrapping_mul(0x9E37_79B9_7F4A_7C15)).collect();
        for &k in &keys {
            tt.store(k, data(9, 1, 2));
            assert_eq!(tt.probe(k).map(|d| d.move16), Some(9));
        }
        TranspositionTable::map_rest_in_background(&tt);
        let t = Instant::now();
        while !tt.fully_mapped() {
            assert!(t.elapsed().as_secs() < 60, "64 MiB not mapped in a minute");
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
        assert_eq!(tt.live.load(Relaxed), tt.buckets.len());
        assert_eq!(tt.mapped_blocks.load(Relaxed), tt.buckets.len().div_ceil(BLOCK_BUCKETS));
        for &k in &keys {
            tt.store(k ^ 1, data(11, 1, 2));
            assert_eq!(tt.probe(k ^ 1).map(|d| d.move16), Some(11));
        }
        // The size in use only grows: a later, shorter touch changes nothing.
        assert!(tt.touch(1, Instant::now()));
        assert!(tt.fully_mapped());
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
