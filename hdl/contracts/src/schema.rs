//! Records that cross the hardware/software boundary, as tables of fields.
//!
//! A [`RecordField`] is a name, a width and a meaning. A record on ports (the RX header record)
//! is a list of them, one port each. A record kept in memory or written over a 32-bit bus (the
//! QP context, the transfer post) is a [`Schema`]: its fields are packed into 32-bit words by one
//! rule, so the RTL's bit offsets, the register map's words and the host tool's encoding all come
//! from the same table:
//!
//! - fields are placed in table order, from bit 0 of word 0 up;
//! - a field of at most 32 bits never crosses a word boundary: it moves to the next word if it
//!   would;
//! - a wider field starts a word and takes whole words, least significant word first.

/// A field of a record: on the RTL the port `<prefix><name>` of `width` bits, or the bits
/// `offset .. offset + width` of a packed [`Schema`] entry; in the runners, the host tool and the
/// docs it is read by the same name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RecordField {
    /// Name (without a port prefix).
    pub name: &'static str,
    /// Width in bits (at most 128).
    pub width: usize,
    /// What it means.
    pub doc: &'static str,
}

impl RecordField {
    /// A field.
    pub const fn new(name: &'static str, width: usize, doc: &'static str) -> RecordField {
        RecordField { name, width, doc }
    }

    /// The largest value the field holds.
    pub const fn max(&self) -> u128 {
        if self.width >= 128 {
            u128::MAX
        } else {
            (1u128 << self.width) - 1
        }
    }
}

/// Bits of a word of a packed [`Schema`] entry.
pub const WORD_BITS: usize = 32;

/// A record packed into 32-bit words by the rule of the module docs.
#[derive(Debug, Clone, Copy)]
pub struct Schema {
    /// Name of the record (`qp_context`, `post`).
    pub name: &'static str,
    /// Its fields, in packing order.
    pub fields: &'static [RecordField],
}

/// Where a field of a [`Schema`] lies in the packed entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Placement {
    /// The field.
    pub field: RecordField,
    /// Its least significant bit in the entry (word `offset / 32`, bit `offset % 32`).
    pub offset: usize,
}

/// The error of [`Schema::encode`]: a field name the schema does not have, or a value too wide.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EncodeError {
    /// The schema has no field of that name.
    UnknownField(String),
    /// The value does not fit the field.
    TooWide {
        /// The field.
        field: &'static str,
        /// Its width.
        width: usize,
        /// The value given.
        value: u128,
    },
}

impl core::fmt::Display for EncodeError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            EncodeError::UnknownField(n) => write!(f, "no field named `{n}`"),
            EncodeError::TooWide { field, width, value } => {
                write!(f, "{value:#x} does not fit the {width}-bit field `{field}`")
            }
        }
    }
}

impl std::error::Error for EncodeError {}

impl Schema {
    /// Every field with its place, in order.
    pub fn placements(&self) -> Vec<Placement> {
        let mut out = Vec::with_capacity(self.fields.len());
        let mut next = 0;
        for &field in self.fields {
            assert!(field.width > 0 && field.width <= 128, "{}: width {}", field.name, field.width);
            let word_end = (next / WORD_BITS + 1) * WORD_BITS;
            let offset = if next % WORD_BITS == 0 || (field.width <= WORD_BITS && next + field.width <= word_end) {
                next
            } else {
                word_end
            };
            out.push(Placement { field, offset });
            next = if field.width > WORD_BITS {
                offset + field.width.div_ceil(WORD_BITS) * WORD_BITS
            } else {
                offset + field.width
            };
        }
        out
    }

    /// The place of the field `name`; panics if there is none (a schema is static data, so a
    /// wrong name is a programming error).
    pub fn placement(&self, name: &str) -> Placement {
        self.placements()
            .into_iter()
            .find(|p| p.field.name == name)
            .unwrap_or_else(|| panic!("{} has no field `{name}`", self.name))
    }

    /// The least significant bit of the field `name` in the packed entry.
    pub fn offset(&self, name: &str) -> usize {
        self.placement(name).offset
    }

    /// The field named `name`, if any.
    pub fn field(&self, name: &str) -> Option<RecordField> {
        self.fields.iter().copied().find(|f| f.name == name)
    }

    /// 32-bit words of a packed entry.
    pub fn words(&self) -> usize {
        self.placements()
            .last()
            .map_or(0, |p| (p.offset + p.field.width).div_ceil(WORD_BITS))
    }

    /// Bits of a packed entry (`32 × words`).
    pub fn bits(&self) -> usize {
        self.words() * WORD_BITS
    }

    /// Packs field values (by name; fields not given are 0) into words.
    pub fn encode(&self, values: &[(&str, u128)]) -> Result<Vec<u32>, EncodeError> {
        let placements = self.placements();
        let mut words = vec![0u32; self.words()];
        for &(name, value) in values {
            let p = placements
                .iter()
                .find(|p| p.field.name == name)
                .ok_or_else(|| EncodeError::UnknownField(name.to_string()))?;
            if value > p.field.max() {
                return Err(EncodeError::TooWide {
                    field: p.field.name,
                    width: p.field.width,
                    value,
                });
            }
            for bit in 0..p.field.width {
                if value >> bit & 1 == 1 {
                    let at = p.offset + bit;
                    words[at / WORD_BITS] |= 1 << (at % WORD_BITS);
                }
            }
        }
        Ok(words)
    }

    /// The value of the field `name` in packed words (missing words read as 0).
    pub fn decode(&self, words: &[u32], name: &str) -> u128 {
        let p = self.placement(name);
        (0..p.field.width).fold(0u128, |value, bit| {
            let at = p.offset + bit;
            let set = words.get(at / WORD_BITS).is_some_and(|w| w >> (at % WORD_BITS) & 1 == 1);
            value | (u128::from(set) << bit)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const FIELDS: [RecordField; 5] = [
        RecordField::new("a", 3, ""),
        RecordField::new("b", 30, ""),
        RecordField::new("mac", 48, ""),
        RecordField::new("c", 8, ""),
        RecordField::new("ip", 128, ""),
    ];
    const SCHEMA: Schema = Schema {
        name: "test",
        fields: &FIELDS,
    };

    #[test]
    fn fields_never_straddle_a_word_and_wide_fields_start_one() {
        let offsets: Vec<usize> = SCHEMA.placements().iter().map(|p| p.offset).collect();
        assert_eq!(offsets, [0, 32, 64, 128, 160]);
        assert_eq!(SCHEMA.words(), 9);
    }

    #[test]
    fn encode_then_decode_gives_the_values_back() {
        let values = [
            ("a", 5),
            ("b", 0x2345_6789),
            ("mac", 0x0201_0a0b_0c0d),
            ("c", 0xff),
            ("ip", u128::MAX - 7),
        ];
        let words = SCHEMA.encode(&values).unwrap();
        for (name, value) in values {
            assert_eq!(SCHEMA.decode(&words, name), value, "{name}");
        }
        assert_eq!(words[2], 0x0a0b_0c0d, "a wide field's low word first");
        assert_eq!(
            SCHEMA.encode(&[("a", 8)]),
            Err(EncodeError::TooWide {
                field: "a",
                width: 3,
                value: 8
            })
        );
        assert_eq!(SCHEMA.encode(&[("z", 0)]), Err(EncodeError::UnknownField("z".into())));
    }
}
