//! The grid of a map's heatmaps: square cells over the map's extent (the positions its logs
//! gave, or the admin's overview image and its calibration), which cell a world position falls
//! in, and where it lands on the drawing.

/// Cells along the longer side of a map drawn without an overview (along the overview's width
/// with one): fine enough to trace corridors, coarse enough that a panel stays a few kilobytes.
pub const CELLS: u32 = 48;

/// Pixels per cell of a drawing without an overview.
const CELL_PIXELS: u32 = 10;

/// A square grid over a map, in world units (x to the right, y up), and its drawing in pixels
/// (y down).
#[derive(Debug, Clone, PartialEq)]
pub struct Grid {
    /// World x of the left edge.
    pub left: f64,
    /// World y of the top edge.
    pub top: f64,
    /// World units per cell side.
    pub cell: f64,
    pub cols: u32,
    pub rows: u32,
    /// The drawing's size in pixels.
    pub width: u32,
    pub height: u32,
    /// Pixels per world unit.
    pub pixels: f64,
}

/// What the admin gave for a map: its overview image and the game's calibration of it
/// (`pos_x`, `pos_y`, `scale`, as in a game's `resource/overviews/<map>.txt`: the world position
/// of the image's top left corner, and world units per pixel of a 1024-pixel-wide radar).
#[derive(Debug, Clone, PartialEq)]
pub struct Overview {
    pub pos_x: f64,
    pub pos_y: f64,
    pub scale: f64,
    /// The image's size in pixels.
    pub width: u32,
    pub height: u32,
    /// The image file's bytes and its extension (`png` or `jpg`).
    pub bytes: Vec<u8>,
    pub extension: &'static str,
}

impl Grid {
    /// The grid around `points` (half a cell of margin on each side); None without points.
    pub fn around(points: impl Iterator<Item = [i32; 3]>) -> Option<Grid> {
        let mut bounds: Option<[f64; 4]> = None;
        for [x, y, _] in points {
            let (x, y) = (f64::from(x), f64::from(y));
            let b = bounds.get_or_insert([x, x, y, y]);
            *b = [b[0].min(x), b[1].max(x), b[2].min(y), b[3].max(y)];
        }
        let [min_x, max_x, min_y, max_y] = bounds?;
        let span = (max_x - min_x).max(max_y - min_y).max(1.0);
        let cell = span / f64::from(CELLS - 1);
        // The extreme points sit half a cell inside the edges.
        let count = |span: f64| ((span / cell + 0.5).floor() as u32 + 1).min(CELLS);
        let (cols, rows) = (count(max_x - min_x), count(max_y - min_y));
        Some(Grid {
            left: min_x - cell / 2.0,
            top: max_y + cell / 2.0,
            cell,
            cols,
            rows,
            width: cols * CELL_PIXELS,
            height: rows * CELL_PIXELS,
            pixels: f64::from(CELL_PIXELS) / cell,
        })
    }

    /// The grid over an overview image: [`CELLS`] across its width, its calibration's world
    /// units, its pixels.
    pub fn on(overview: &Overview) -> Grid {
        let pixels = f64::from(overview.width) / (overview.scale * 1024.0);
        let cell = f64::from(overview.width) / pixels / f64::from(CELLS);
        let rows = (f64::from(overview.height) / pixels / cell).ceil() as u32;
        Grid {
            left: overview.pos_x,
            top: overview.pos_y,
            cell,
            cols: CELLS,
            rows: rows.max(1),
            width: overview.width,
            height: overview.height,
            pixels,
        }
    }

    /// The cell (column, row) of world position `p`; None outside the grid.
    pub fn cell_of(&self, p: [i32; 3]) -> Option<(u32, u32)> {
        let col = (f64::from(p[0]) - self.left) / self.cell;
        let row = (self.top - f64::from(p[1])) / self.cell;
        let inside = |v: f64, n: u32| v >= 0.0 && v < f64::from(n);
        (inside(col, self.cols) && inside(row, self.rows)).then_some((col as u32, row as u32))
    }

    /// Where world position `p` lands on the drawing, in pixels from its top left corner.
    pub fn pixel(&self, p: [i32; 3]) -> (f64, f64) {
        (
            (f64::from(p[0]) - self.left) * self.pixels,
            (self.top - f64::from(p[1])) * self.pixels,
        )
    }
}

/// Most bytes of an overview image a site may give.
const MAX_OVERVIEW_BYTES: u64 = 16 << 20;

/// Largest side of an overview image, in pixels.
const MAX_OVERVIEW_SIDE: u32 = 16384;

/// Most an overview may be taller than wide or wider than tall (its grid has 48 columns and
/// at most this many times as many rows).
const MAX_OVERVIEW_ASPECT: u32 = 4;

/// The overview of map `map` in `site_dir/maps/` (`<map>.png` or `<map>.jpg` with `<map>.txt`),
/// or why there is none usable (None: the admin gave none).
pub fn read_overview(site_dir: &std::path::Path, map: &str) -> Option<Result<Overview, String>> {
    let safe = !map.is_empty()
        && map.len() <= 64
        && map
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"_-.".contains(&b))
        && !map.starts_with('.');
    if !safe {
        return None;
    }
    let dir = site_dir.join("maps");
    let txt = dir.join(format!("{map}.txt"));
    let image = [("png", "png"), ("jpg", "jpg"), ("jpeg", "jpg")]
        .iter()
        .map(|(ext, as_ext)| (dir.join(format!("{map}.{ext}")), *as_ext))
        .find(|(p, _)| p.is_file());
    let Some((path, extension)) = image else {
        return txt.is_file().then(|| {
            Err(format!(
                "maps/{map}.txt has no image beside it (maps/{map}.png, .jpg or .jpeg)"
            ))
        });
    };
    let read = || -> Result<Overview, String> {
        let text = std::fs::read_to_string(&txt)
            .map_err(|e| format!("maps/{map}.txt (its calibration) cannot be read: {e}"))?;
        let (pos_x, pos_y, scale) =
            calibration(&text).map_err(|e| format!("maps/{map}.txt: {e}"))?;
        let len = std::fs::metadata(&path).map_err(|e| e.to_string())?.len();
        if len > MAX_OVERVIEW_BYTES {
            return Err(format!("{} is over 16 MB", path.display()));
        }
        let bytes = std::fs::read(&path).map_err(|e| e.to_string())?;
        let (width, height) = image_size(&bytes)
            .ok_or_else(|| format!("{} is not a PNG or JPEG image", path.display()))?;
        if width.max(height) > MAX_OVERVIEW_SIDE {
            return Err(format!(
                "{} is {width} x {height} pixels: at most {MAX_OVERVIEW_SIDE} on a side",
                path.display()
            ));
        }
        if width.max(height) > MAX_OVERVIEW_ASPECT * width.min(height) {
            return Err(format!(
                "{} is {width} x {height} pixels: an overview may be at most \
                 {MAX_OVERVIEW_ASPECT} times as tall as wide or as wide as tall",
                path.display()
            ));
        }
        Ok(Overview {
            pos_x,
            pos_y,
            scale,
            width,
            height,
            bytes,
            extension,
        })
    };
    Some(read())
}

/// `pos_x`, `pos_y` and `scale` of a game's overview file (Valve's KeyValues: `"pos_x"
/// "-2476"`), or which of them is missing or wrong (the scale must be a positive number; a
/// rotated overview is not drawn).
pub fn calibration(text: &str) -> Result<(f64, f64, f64), String> {
    let raw = |key: &str| -> Option<String> {
        text.lines().find_map(|line| {
            let mut words = line.split('"').map(str::trim).filter(|w| !w.is_empty());
            let k = words.next()?;
            k.eq_ignore_ascii_case(key)
                .then(|| words.next().unwrap_or("").to_string())
        })
    };
    let number = |key: &str| -> Result<f64, String> {
        let v = raw(key).ok_or_else(|| format!("no \"{key}\""))?;
        v.parse::<f64>()
            .ok()
            .filter(|v| v.is_finite())
            .ok_or_else(|| format!("\"{key}\" is {v:?}, not a number"))
    };
    if raw("rotate").is_some_and(|r| r.trim() != "0") {
        return Err(
            "\"rotate\" asks for a turned overview, which is not drawn: turn the image \
                    and drop the line"
                .to_string(),
        );
    }
    let (pos_x, pos_y, scale) = (number("pos_x")?, number("pos_y")?, number("scale")?);
    if scale <= 0.0 {
        return Err(format!("\"scale\" is {scale}: it must be above 0"));
    }
    Ok((pos_x, pos_y, scale))
}

/// Width and height of a PNG or JPEG image, from its header.
pub fn image_size(bytes: &[u8]) -> Option<(u32, u32)> {
    let be32 = |b: &[u8]| u32::from_be_bytes([b[0], b[1], b[2], b[3]]);
    if bytes.starts_with(b"\x89PNG\r\n\x1a\n") && bytes.len() >= 24 && &bytes[12..16] == b"IHDR" {
        let (w, h) = (be32(&bytes[16..20]), be32(&bytes[20..24]));
        return (w > 0 && h > 0).then_some((w, h));
    }
    if !bytes.starts_with(&[0xff, 0xd8]) {
        return None;
    }
    let mut at = 2;
    while at + 4 <= bytes.len() {
        if bytes[at] != 0xff {
            return None;
        }
        let marker = bytes[at + 1];
        if marker == 0xff {
            at += 1;
            continue;
        }
        let len = usize::from(u16::from_be_bytes([bytes[at + 2], bytes[at + 3]]));
        let frame = matches!(marker, 0xc0..=0xcf) && !matches!(marker, 0xc4 | 0xc8 | 0xcc);
        if frame && at + 9 <= bytes.len() {
            let h = u32::from(u16::from_be_bytes([bytes[at + 5], bytes[at + 6]]));
            let w = u32::from(u16::from_be_bytes([bytes[at + 7], bytes[at + 8]]));
            return (w > 0 && h > 0).then_some((w, h));
        }
        if len < 2 {
            return None;
        }
        at += 2 + len;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Hand-worked: points from (-1000, -200) to (1400, 600): the longer span 2400 makes cells
    /// of 2400 / 47 units; (0, 0) is 1000 units right of the left point plus half a cell, and
    /// 600 units below the top one plus half a cell.
    #[test]
    fn a_known_kill_lands_in_its_cell() {
        let g = Grid::around([[-1000, -200, 0], [1400, 600, 64]].into_iter()).unwrap();
        let cell = 2400.0 / 47.0;
        assert!((g.cell - cell).abs() < 1e-9);
        assert_eq!((g.cols, g.rows), (48, 17));
        assert_eq!(g.cell_of([0, 0, 0]), Some((20, 12)));
        // col = (0 - (-1000 - cell/2)) / cell = 19.58 + 0.5; row = (600 + cell/2 - 0) / cell.
        assert_eq!(((1000.0 + cell / 2.0) / cell) as u32, 20);
        assert_eq!(((600.0 + cell / 2.0) / cell) as u32, 12);
        assert_eq!(g.cell_of([-1000, 600, 0]), Some((0, 0)));
        // 800 units below the top point and half a cell: row 16.17, so 17 rows.
        assert_eq!(g.cell_of([1400, -200, 0]), Some((47, 16)));
        assert_eq!(g.cell_of([5000, 0, 0]), None);
        assert_eq!((g.width, g.height), (480, 170));
    }

    /// de_dust2's calibration as CS:GO ships it, on a 1024-pixel radar and on one halved: two
    /// known points land on the image's corners and middle.
    #[test]
    fn an_overview_is_aligned_on_two_known_points() {
        let text = "\"de_dust2\"\n{\n\t\"material\"\t\"overviews/de_dust2\"\n\t\"pos_x\"\t\t\"-2476\"\n\t\"pos_y\"\t\t\"3239\"\n\t\"scale\"\t\t\"4.4\"\n}\n";
        let (pos_x, pos_y, scale) = calibration(text).unwrap();
        assert!(
            calibration("\"pos_x\" \"1\"\n\"pos_y\" \"2\"\n\"scale\" \"0\"")
                .unwrap_err()
                .contains("above 0")
        );
        assert!(
            calibration("\"pos_x\" \"1\"\n\"pos_y\" \"2\"")
                .unwrap_err()
                .contains("no \"scale\"")
        );
        assert!(
            calibration("\"pos_x\" \"a\"")
                .unwrap_err()
                .contains("not a number")
        );
        assert!(
            calibration(&format!("{text}\"rotate\" \"1\""))
                .unwrap_err()
                .contains("rotate")
        );
        assert_eq!((pos_x, pos_y, scale), (-2476.0, 3239.0, 4.4));
        for size in [1024, 512] {
            let o = Overview {
                pos_x,
                pos_y,
                scale,
                width: size,
                height: size,
                bytes: Vec::new(),
                extension: "png",
            };
            let g = Grid::on(&o);
            let corner = g.pixel([-2476, 3239, 0]);
            assert!(corner.0.abs() < 1e-9 && corner.1.abs() < 1e-9, "{corner:?}");
            // 512 pixels right and down at 4.4 units each on the full radar: its middle.
            let middle = g.pixel([-2476 + 2253, 3239 - 2253, 0]);
            let half = f64::from(size) / 2.0;
            let err = (middle.0 - half * 2253.0 / 2252.8).abs()
                + (middle.1 - half * 2253.0 / 2252.8).abs();
            assert!(err < 1e-6, "{middle:?} on {size}");
            assert_eq!((g.cols, g.rows), (48, 48));
            assert_eq!(g.cell_of([-2476, 3239, 0]), Some((0, 0)));
            assert_eq!(g.cell_of([-2476 - 1, 3239, 0]), None);
        }
    }

    #[test]
    fn image_sizes_of_png_and_jpeg_headers() {
        let mut png = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR".to_vec();
        png.extend(1024u32.to_be_bytes());
        png.extend(768u32.to_be_bytes());
        assert_eq!(image_size(&png), Some((1024, 768)));
        // SOI, an APP0 of 16 bytes, then SOF0 with height 600 and width 800.
        let mut jpg = vec![0xff, 0xd8, 0xff, 0xe0, 0, 16];
        jpg.extend([0u8; 14]);
        jpg.extend([0xff, 0xc0, 0, 17, 8, 0x02, 0x58, 0x03, 0x20]);
        assert_eq!(image_size(&jpg), Some((800, 600)));
        assert_eq!(image_size(b"GIF89a"), None);
        assert_eq!(image_size(&[0xff, 0xd8, 0xff]), None);
    }
}
