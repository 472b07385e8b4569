//! Boilerplate shared by the header views (crate-internal).

/// Defines `Packet<T>`, a view over a byte buffer, with `new_unchecked`, `new_checked` (which
/// calls the `check_len` the module defines) and `into_inner`; `$doc` documents the type.
macro_rules! view {
    ($doc:expr) => {
        #[doc = $doc]
        #[derive(Debug, Clone)]
        pub struct Packet<T: AsRef<[u8]>> {
            buffer: T,
        }

        impl<T: AsRef<[u8]>> Packet<T> {
            /// Wraps a buffer without checking it.
            pub const fn new_unchecked(buffer: T) -> Packet<T> {
                Packet { buffer }
            }
            /// Wraps a buffer and checks it with [`Packet::check_len`].
            pub fn new_checked(buffer: T) -> $crate::Result<Packet<T>> {
                let p = Packet::new_unchecked(buffer);
                p.check_len()?;
                Ok(p)
            }
            /// Returns the underlying buffer.
            pub fn into_inner(self) -> T {
                self.buffer
            }
        }
    };
}
pub(crate) use view;

/// Defines `Packet<T>` ([`view`]) with `check_len`, `header` and `payload` for a fixed-length
/// header of `$len` bytes.
macro_rules! fixed_view {
    ($name:literal, $len:expr) => {
        $crate::view::view!(concat!("A checked view of a ", $name, " header over a byte buffer."));

        impl<T: AsRef<[u8]>> Packet<T> {
            /// Checks that the buffer holds the whole header.
            pub fn check_len(&self) -> $crate::Result<()> {
                if self.buffer.as_ref().len() < $len {
                    Err($crate::Error::Truncated)
                } else {
                    Ok(())
                }
            }
            /// The header bytes.
            pub fn header(&self) -> &[u8] {
                &self.buffer.as_ref()[..$len]
            }
            /// The bytes after the header.
            pub fn payload(&self) -> &[u8] {
                &self.buffer.as_ref()[$len..]
            }
            #[allow(dead_code)]
            fn b(&self) -> &[u8] {
                self.buffer.as_ref()
            }
        }

        impl<T: AsRef<[u8]> + AsMut<[u8]>> Packet<T> {
            #[allow(dead_code)]
            fn bm(&mut self) -> &mut [u8] {
                self.buffer.as_mut()
            }
            /// Mutable bytes after the header.
            pub fn payload_mut(&mut self) -> &mut [u8] {
                &mut self.buffer.as_mut()[$len..]
            }
        }
    };
}
pub(crate) use fixed_view;
