//! One file of a site as the renderer makes it and the output writes it: its path, its bytes
//! (in parts), and what the output does with it (keep the published one, or it is staged).

/// One file of the output, path relative to the output folder (`/`-separated). The site's list
/// holds one per file to the end of the build, most of them pages already staged without their
/// bytes: 56 bytes each (96 with the bytes' two lists in place, 6 MB for the 65,000 files of a
/// site of 64,000 matches, held twice while the lists of pages were joined: issue 41).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OutputFile {
    pub path: String,
    /// The file's bytes, part after part; none when it has no bytes, is kept (`reuse`) or was
    /// staged already. A file of tens of MB made in parallel chunks (`data/players.json`), or a
    /// page around a large part made apart, is kept as its parts and written part by part,
    /// never copied into one buffer (fresh memory and copies were a good share of an append to
    /// a public server's site).
    contents: Option<Box<Parts>>,
    /// The file at this path in the current output is already right: keep it.
    pub reuse: bool,
    /// What the page was made from (see [`crate::render::PageCache`]), remembered for the next build.
    pub key: Option<u64>,
    /// `Some(written)` when a [`crate::render::PageSink`] already put the file into the staging folder (its
    /// bytes are then dropped); `written`: its bytes were new there.
    pub staged: Option<bool>,
}

/// A file's parts (boxed: a file without bytes holds none, in a pointer's room).
#[derive(Debug, Clone, PartialEq, Eq)]
struct Parts(Vec<Vec<u8>>);

impl OutputFile {
    /// A file made by this build, with no key to remember.
    pub fn new(path: impl Into<String>, bytes: Vec<u8>) -> OutputFile {
        OutputFile::from_parts(path, vec![bytes])
    }

    /// A file made by this build from `parts`, its bytes one after another.
    pub fn from_parts(path: impl Into<String>, mut parts: Vec<Vec<u8>>) -> OutputFile {
        parts.retain(|p| !p.is_empty());
        OutputFile {
            path: path.into(),
            contents: (!parts.is_empty()).then(|| Box::new(Parts(parts))),
            reuse: false,
            key: None,
            staged: None,
        }
    }

    /// The file at `path` with no bytes of its own: kept as published (`reuse`) or staged
    /// already (`staged`), with its key.
    pub fn without_bytes(
        path: String,
        key: Option<u64>,
        reuse: bool,
        staged: Option<bool>,
    ) -> OutputFile {
        OutputFile {
            path,
            contents: None,
            reuse,
            key,
            staged,
        }
    }

    /// The file without its bytes, staged (`written`: its bytes were new in the staging folder).
    pub fn into_staged(self, written: bool) -> OutputFile {
        OutputFile {
            contents: None,
            staged: Some(written),
            ..self
        }
    }

    /// The file's bytes, part after part (no part when it has none).
    pub fn parts(&self) -> impl Iterator<Item = &[u8]> {
        self.contents
            .iter()
            .flat_map(|parts| parts.0.iter().map(Vec::as_slice))
    }

    /// How many parts the file's bytes are in.
    pub fn part_count(&self) -> usize {
        self.contents.as_ref().map_or(0, |parts| parts.0.len())
    }

    /// The number of the file's bytes.
    pub fn len(&self) -> usize {
        self.parts().map(<[u8]>::len).sum()
    }

    /// The file has no bytes.
    pub fn is_empty(&self) -> bool {
        self.contents.is_none()
    }

    /// The file's bytes in one buffer (for tests and tools that read a file whole).
    pub fn to_vec(&self) -> Vec<u8> {
        self.parts().collect::<Vec<_>>().concat()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A file's bytes are its parts one after another, the empty ones left out; a staged file
    /// keeps its path and key, not its bytes. The list of a site holds one a file: it stays small.
    #[test]
    fn parts_make_the_bytes_and_staging_drops_them() {
        let file =
            OutputFile::from_parts("a/b.json", vec![b"[1,".to_vec(), vec![], b"2]".to_vec()]);
        assert_eq!(
            (file.to_vec(), file.len(), file.part_count()),
            (b"[1,2]".to_vec(), 5, 2)
        );
        assert!(!file.is_empty());
        let empty = OutputFile::new("e.txt", Vec::new());
        assert!(empty.is_empty() && empty.parts().next().is_none());
        let staged = OutputFile {
            key: Some(9),
            ..file
        }
        .into_staged(true);
        assert_eq!(
            (staged.path.as_str(), staged.key, staged.staged),
            ("a/b.json", Some(9), Some(true))
        );
        assert!(staged.is_empty());
        assert!(std::mem::size_of::<OutputFile>() <= 56);
    }
}
