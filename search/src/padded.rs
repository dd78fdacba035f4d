//! A value alone on its cache lines, so threads writing neighbouring values do not slow each
//! other down (false sharing).

/// `T` aligned to 128 bytes (two lines: adjacent-line prefetchers pull lines in pairs), its size
/// rounded up to match.
#[repr(align(128))]
#[derive(Default)]
pub struct Padded<T>(pub T);

impl<T> std::ops::Deref for Padded<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.0
    }
}
