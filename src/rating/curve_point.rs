//! [`CurvePoint`]: one point of a rating curve (match number in rating order, rating after it)
//! in 12 bytes, not the 16 a `(u32, f64)` takes: Becker's and the headline's curves hold a point
//! per player per match of the history (16 MB at 64,000 matches of 8 players, issue 41).
//! Serialized as the pair it is, so stored bytes do not change. Not the curves themselves.

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// (match number in rating order, rating after it), packed.
#[derive(Clone, Copy)]
#[repr(C, packed(4))]
pub struct CurvePoint {
    match_number: u32,
    rating: f64,
}

impl CurvePoint {
    /// The point of `rating` after match `match_number`.
    pub fn new(match_number: u32, rating: f64) -> CurvePoint {
        CurvePoint {
            match_number,
            rating,
        }
    }

    /// The point as its pair.
    pub fn pair(self) -> (u32, f64) {
        (self.match_number, self.rating)
    }
}

impl std::fmt::Debug for CurvePoint {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.pair().fmt(f)
    }
}

impl PartialEq for CurvePoint {
    fn eq(&self, other: &CurvePoint) -> bool {
        self.pair() == other.pair()
    }
}

impl Serialize for CurvePoint {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.pair().serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for CurvePoint {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<CurvePoint, D::Error> {
        let (match_number, rating) = <(u32, f64)>::deserialize(deserializer)?;
        Ok(CurvePoint::new(match_number, rating))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 12 bytes, stored as the pair (postcard and JSON), read back to the bit.
    #[test]
    fn a_curve_point_is_twelve_bytes_stored_as_its_pair() {
        assert_eq!(std::mem::size_of::<CurvePoint>(), 12);
        for (n, r) in [
            (0, 0.0),
            (7, -1.5),
            (u32::MAX, f64::MAX),
            (3, f64::MIN_POSITIVE),
        ] {
            let p = CurvePoint::new(n, r);
            let bytes = postcard::to_allocvec(&p).unwrap();
            assert_eq!(bytes, postcard::to_allocvec(&(n, r)).unwrap());
            assert_eq!(
                serde_json::to_string(&p).unwrap(),
                serde_json::to_string(&(n, r)).unwrap()
            );
            let back: CurvePoint = postcard::from_bytes(&bytes).unwrap();
            assert_eq!(back.pair().0, n);
            assert_eq!(back.pair().1.to_bits(), r.to_bits());
        }
    }
}
