//! Reading and writing classic pcap files (LINKTYPE_ETHERNET) with the `pcap-file` crate.

use pcap_file::pcap::{PcapHeader, PcapPacket, PcapReader, PcapWriter};
use pcap_file::{DataLink, Endianness};
use std::fmt;
use std::fs::File;
use std::io::{BufReader, BufWriter, Read};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Snap length written into new files.
pub const SNAPLEN: u32 = 65535;

/// What went wrong reading or writing a pcap file.
#[derive(Debug)]
pub enum PcapError {
    /// The file could not be opened, read, created or written.
    Io {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// The file is not a classic pcap file (wrong magic, pcapng, too short, ...).
    NotPcap {
        /// The file.
        path: PathBuf,
        /// Why.
        detail: String,
    },
    /// The file's link type is not Ethernet.
    WrongLinkType {
        /// The file.
        path: PathBuf,
        /// The link type found.
        linktype: u32,
    },
    /// A packet record is damaged (e.g. cut short at the end of the file).
    BadRecord {
        /// The file.
        path: PathBuf,
        /// Index of the record (0-based).
        index: usize,
        /// Why.
        detail: String,
    },
    /// A packet was captured shorter than it was on the wire (snap length).
    Truncated {
        /// The file.
        path: PathBuf,
        /// Index of the record (0-based).
        index: usize,
        /// Captured bytes.
        captured: usize,
        /// Original length.
        original: u32,
    },
    /// With `fcs = true`, a frame shorter than its 4-byte FCS.
    ShortForFcs {
        /// The file.
        path: PathBuf,
        /// Index of the record (0-based).
        index: usize,
        /// Its length.
        len: usize,
    },
}

impl fmt::Display for PcapError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PcapError::Io { path, source } => write!(f, "{}: {source}", path.display()),
            PcapError::NotPcap { path, detail } => {
                write!(f, "{} is not a pcap file: {detail}", path.display())
            }
            PcapError::WrongLinkType { path, linktype } => write!(
                f,
                "{}: link type {linktype} is not Ethernet (LINKTYPE_ETHERNET = 1)",
                path.display()
            ),
            PcapError::BadRecord { path, index, detail } => {
                write!(f, "{}: packet record {index} is damaged: {detail}", path.display())
            }
            PcapError::Truncated {
                path,
                index,
                captured,
                original,
            } => write!(
                f,
                "{}: packet {index} was captured truncated ({captured} of {original} bytes)",
                path.display()
            ),
            PcapError::ShortForFcs { path, index, len } => write!(
                f,
                "{}: packet {index} is {len} bytes, too short to carry a 4-byte FCS",
                path.display()
            ),
        }
    }
}

impl std::error::Error for PcapError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            PcapError::Io { source, .. } => Some(source),
            _ => None,
        }
    }
}

/// Why the first bytes of a file are not a classic pcap header, or `None` if they are.
fn bad_magic(head: &[u8]) -> Option<String> {
    if head.len() < 24 {
        return Some(format!("too short for a pcap header ({} bytes, need 24)", head.len()));
    }
    let m = u32::from_be_bytes([head[0], head[1], head[2], head[3]]);
    match m {
        0xA1B2_C3D4 | 0xA1B2_3C4D | 0xD4C3_B2A1 | 0x4D3C_B2A1 => None,
        0x0A0D_0D0A => Some("it is a pcapng file; convert it with `editcap -F pcap IN OUT`".to_string()),
        _ => Some(format!("bad magic number {m:#010x}")),
    }
}

/// Reads every frame of a pcap file with Ethernet link type. When `fcs` is true, each frame
/// ends with a 4-byte FCS, which is stripped (a frame shorter than 4 bytes is an error).
pub fn read_pcap(path: impl AsRef<Path>, fcs: bool) -> Result<Vec<Vec<u8>>, PcapError> {
    let path = path.as_ref();
    let io = |source| PcapError::Io {
        path: path.to_path_buf(),
        source,
    };
    let mut head = Vec::new();
    File::open(path).map_err(io)?.take(24).read_to_end(&mut head).map_err(io)?;
    if let Some(detail) = bad_magic(&head) {
        return Err(PcapError::NotPcap {
            path: path.to_path_buf(),
            detail,
        });
    }
    let file = File::open(path).map_err(io)?;
    let mut reader = PcapReader::new(BufReader::new(file)).map_err(|e| PcapError::NotPcap {
        path: path.to_path_buf(),
        detail: format!("bad header: {e}"),
    })?;
    let linktype = u32::from(reader.header().datalink);
    if reader.header().datalink != DataLink::ETHERNET {
        return Err(PcapError::WrongLinkType {
            path: path.to_path_buf(),
            linktype,
        });
    }
    let mut frames = Vec::new();
    while let Some(pkt) = reader.next_packet() {
        let index = frames.len();
        let pkt = pkt.map_err(|e| PcapError::BadRecord {
            path: path.to_path_buf(),
            index,
            detail: match e {
                pcap_file::PcapError::IncompleteBuffer => "file ends inside the record".into(),
                other => other.to_string(),
            },
        })?;
        let mut data = pkt.data.into_owned();
        if (data.len() as u64) < u64::from(pkt.orig_len) {
            return Err(PcapError::Truncated {
                path: path.to_path_buf(),
                index,
                captured: data.len(),
                original: pkt.orig_len,
            });
        }
        if fcs {
            if data.len() < 4 {
                return Err(PcapError::ShortForFcs {
                    path: path.to_path_buf(),
                    index,
                    len: data.len(),
                });
            }
            data.truncate(data.len() - 4);
        }
        frames.push(data);
    }
    Ok(frames)
}

/// Writes frames (no FCS) to a new pcap file (little-endian, microsecond timestamps,
/// LINKTYPE_ETHERNET, snap length 65535); frame `i` gets timestamp `i` µs.
pub fn write_pcap(path: impl AsRef<Path>, frames: &[Vec<u8>]) -> Result<(), PcapError> {
    let path = path.as_ref();
    let io = |source| PcapError::Io {
        path: path.to_path_buf(),
        source,
    };
    let file = File::create(path).map_err(io)?;
    let header = PcapHeader {
        datalink: DataLink::ETHERNET,
        snaplen: SNAPLEN,
        endianness: Endianness::Little,
        ..Default::default()
    };
    let to_io = |e: pcap_file::PcapError| match e {
        pcap_file::PcapError::IoError(source) => PcapError::Io {
            path: path.to_path_buf(),
            source,
        },
        other => PcapError::Io {
            path: path.to_path_buf(),
            source: std::io::Error::other(other.to_string()),
        },
    };
    let mut w = PcapWriter::with_header(BufWriter::new(file), header).map_err(to_io)?;
    for (i, f) in frames.iter().enumerate() {
        let len = u32::try_from(f.len()).map_err(|_| PcapError::Io {
            path: path.to_path_buf(),
            source: std::io::Error::new(std::io::ErrorKind::InvalidInput, "frame too long"),
        })?;
        let pkt = PcapPacket::new(Duration::from_micros(i as u64), len, f);
        w.write_packet(&pkt).map_err(to_io)?;
    }
    let mut bw = w.into_writer();
    std::io::Write::flush(&mut bw).map_err(io)?;
    Ok(())
}
