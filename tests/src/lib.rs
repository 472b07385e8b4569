//! Cross-crate tests live in `tests/tests/`; see `lint_gate.rs`. This library holds what
//! several of them share: the records of tool results kept by fingerprint (`tests/*.lock`),
//! so a slow check runs again only when what it checks changed.

use std::path::{Path, PathBuf};

/// Results kept by fingerprint in a file beside this crate's manifest: one line per checked
/// item, `name fingerprint result`. `FERROCE_LEVELS_FRESH=1` opens every record empty, so every
/// check runs.
pub struct Record {
    /// The file.
    pub path: PathBuf,
    text: String,
}

impl Record {
    /// The record `name` (a file name in `tests/`); empty when it does not exist yet.
    pub fn open(name: &str) -> Record {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(name);
        let fresh = std::env::var("FERROCE_LEVELS_FRESH").is_ok_and(|v| v == "1");
        let text = if fresh {
            String::new()
        } else {
            std::fs::read_to_string(&path).unwrap_or_default()
        };
        Record { path, text }
    }

    /// The result recorded for `name` with fingerprint `print`.
    pub fn get(&self, name: &str, print: &str) -> Option<String> {
        self.line(name).filter(|(recorded, _)| recorded == print).map(|(_, result)| result)
    }

    /// The fingerprint and result recorded for `name`, whatever the fingerprint.
    pub fn line(&self, name: &str) -> Option<(String, String)> {
        self.text.lines().find_map(|line| {
            let mut parts = line.splitn(3, ' ');
            (parts.next() == Some(name)).then(|| (parts.next().unwrap_or("").to_string(), parts.next().unwrap_or("").to_string()))
        })
    }

    /// Rewrites the file: `header`, then one line per `(name, fingerprint, result)`.
    pub fn write(&self, header: &str, lines: &[(String, String, String)]) {
        let body: Vec<String> = lines.iter().map(|(m, print, result)| format!("{m} {print} {result}")).collect();
        std::fs::write(&self.path, format!("{header}{}\n", body.join("\n"))).unwrap();
    }
}

/// CRC-64 (XZ) of a check's inputs, each part with its length, in hex.
pub fn fingerprint(parts: &[&[u8]]) -> String {
    let crc = crc::Crc::<u64>::new(&crc::CRC_64_XZ);
    let mut digest = crc.digest();
    for part in parts {
        digest.update(&(part.len() as u64).to_le_bytes());
        digest.update(part);
    }
    format!("{:016x}", digest.finalize())
}
