//! One file of a site as the renderer makes it and the output writes it: its path, its bytes
//! (in parts), and what the output does with it (keep the published one, or it is staged).

/// One file of the output, path relative to the output folder (`/`-separated).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OutputFile {
    pub path: String,
    /// The file's bytes (its first part when `more` is not empty); empty when `reuse` is set.
    pub bytes: Vec<u8>,
    /// The rest of the file's bytes, part after part: a file of tens of MB made in parallel
    /// chunks (`data/players.json`), or a page around a large part made apart, is kept as its
    /// parts and written part by part, never copied into one buffer (fresh memory and copies
    /// were a good share of an append to a public server's site).
    pub more: Vec<Vec<u8>>,
    /// The file at this path in the current output is already right: keep it.
    pub reuse: bool,
    /// What the page was made from (see [`crate::render::PageCache`]), remembered for the next build.
    pub key: Option<u64>,
    /// `Some(written)` when a [`crate::render::PageSink`] already put the file into the staging folder (its
    /// bytes are then dropped); `written`: its bytes were new there.
    pub staged: Option<bool>,
}

impl OutputFile {
    /// A file made by this build, with no key to remember.
    pub fn new(path: impl Into<String>, bytes: Vec<u8>) -> OutputFile {
        OutputFile {
            path: path.into(),
            bytes,
            more: Vec::new(),
            reuse: false,
            key: None,
            staged: None,
        }
    }

    /// A file made by this build from `parts`, its bytes one after another (see `more`).
    pub fn from_parts(path: impl Into<String>, parts: Vec<Vec<u8>>) -> OutputFile {
        let mut parts = parts.into_iter();
        let mut file = OutputFile::new(path, parts.next().unwrap_or_default());
        file.more = parts.collect();
        file
    }

    /// The file's bytes, part after part.
    pub fn parts(&self) -> impl Iterator<Item = &[u8]> {
        std::iter::once(self.bytes.as_slice()).chain(self.more.iter().map(Vec::as_slice))
    }

    /// The number of the file's bytes.
    pub fn len(&self) -> usize {
        self.parts().map(<[u8]>::len).sum()
    }

    /// The file has no bytes.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The file's bytes in one buffer (for tests and tools that read a file whole).
    pub fn to_vec(&self) -> Vec<u8> {
        self.parts().collect::<Vec<_>>().concat()
    }
}
