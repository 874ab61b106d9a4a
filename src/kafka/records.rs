//! Record batches as a Fetch response carries them (magic v2): the batch headers a reader
//! needs to move on and to drop aborted transactions, and the records of a batch, read in
//! place (keys, values and headers are slices of the batch, never copies).

use anyhow::{anyhow, bail, Context, Result};
use bytes::Bytes;
use std::io::Read;

/// Bytes before a batch's records: base offset … record count.
const HEADER_LEN: usize = 61;
/// Bytes of the base offset and batch length fields, which `batchLength` does not count.
const LOG_OVERHEAD: usize = 12;
/// Where the CRC-32C sits; it covers everything after it (attributes … records).
const CRC_AT: usize = 17;

/// Largest decompressed records section accepted: far above any real batch, low enough
/// that a corrupt or hostile one cannot take the machine's memory.
const MAX_DECOMPRESSED: u64 = 256 << 20;

const TIMESTAMP_LOG_APPEND: i16 = 1 << 3;
const TRANSACTIONAL: i16 = 1 << 4;
const CONTROL: i16 = 1 << 5;

/// A whole record batch and what its header says.
#[derive(Debug, Clone)]
pub struct Batch {
    pub base_offset: i64,
    pub last_offset: i64,
    pub producer_id: i64,
    attributes: i16,
    base_timestamp: i64,
    max_timestamp: i64,
    record_count: i32,
    /// The whole batch, header included.
    bytes: Bytes,
}

/// Splits a partition's `records` into whole batches. A Fetch response may end with a
/// partial batch (the broker cuts at the size limit): it is left for the next fetch.
pub fn batches(records: &Bytes) -> Result<Vec<Batch>> {
    let mut out = Vec::new();
    let mut at = 0;
    while records.len() - at >= LOG_OVERHEAD + 5 {
        let b = &records[at..];
        let length = i32::from_be_bytes(b[8..12].try_into().unwrap());
        let total = LOG_OVERHEAD
            + usize::try_from(length).map_err(|_| anyhow!("negative batch length {length}"))?;
        let magic = b[16] as i8;
        if magic != 2 {
            let offset = i64::from_be_bytes(b[0..8].try_into().unwrap());
            bail!(
                "message format v{magic} at offset {offset}: only record batches (v2, Kafka 0.11 and later) are read"
            );
        }
        if b.len() < total {
            break;
        }
        if total < HEADER_LEN {
            bail!("a record batch of {total} bytes is shorter than its header");
        }
        let int = |range: std::ops::Range<usize>| i64::from_be_bytes(b[range].try_into().unwrap());
        let base_offset = int(0..8);
        let last_offset_delta = i32::from_be_bytes(b[23..27].try_into().unwrap());
        out.push(Batch {
            base_offset,
            last_offset: base_offset
                .checked_add(i64::from(last_offset_delta))
                .ok_or_else(|| {
                    anyhow!("a batch at offset {base_offset} ends past the largest offset")
                })?,
            attributes: i16::from_be_bytes(b[21..23].try_into().unwrap()),
            base_timestamp: int(27..35),
            max_timestamp: int(35..43),
            producer_id: int(43..51),
            record_count: i32::from_be_bytes(b[57..61].try_into().unwrap()),
            bytes: records.slice(at..at + total),
        });
        at += total;
    }
    Ok(out)
}

impl Batch {
    pub fn is_transactional(&self) -> bool {
        self.attributes & TRANSACTIONAL != 0
    }

    pub fn is_control(&self) -> bool {
        self.attributes & CONTROL != 0
    }

    /// 0 for a batch the log cleaner emptied (kept for its producer state).
    pub fn record_count(&self) -> i32 {
        self.record_count
    }

    /// The first record's timestamp, from the header: no need to decompress. With
    /// LogAppendTime every record has the broker's time, which the header keeps as its
    /// max timestamp (the base stays the producer's).
    pub fn first_timestamp(&self) -> i64 {
        if self.attributes & TIMESTAMP_LOG_APPEND != 0 {
            self.max_timestamp
        } else {
            self.base_timestamp
        }
    }

    /// A copy of the batch that does not keep the whole Fetch response it came in alive.
    pub fn detached(self) -> Batch {
        Batch {
            bytes: Bytes::copy_from_slice(&self.bytes),
            ..self
        }
    }

    /// A control batch holding an ABORT marker (its first record's key: version, type 0).
    pub fn is_abort_marker(&self) -> Result<bool> {
        if !self.is_control() {
            return Ok(false);
        }
        let mut kind = None;
        self.for_each_record(|r| {
            if kind.is_none() {
                let key = r.key.filter(|k| k.len() >= 4).ok_or_else(|| {
                    anyhow!("a control record at offset {} has no marker key", r.offset)
                })?;
                kind = Some(i16::from_be_bytes([key[2], key[3]]));
            }
            Ok(())
        })?;
        Ok(kind == Some(0))
    }

    /// Kafka's Java consumer checks this by default (`check.crcs`): a batch damaged on
    /// disk or on the wire could otherwise still parse, into ids that were never written.
    pub fn verify_crc(&self) -> Result<()> {
        let stored = u32::from_be_bytes(self.bytes[CRC_AT..CRC_AT + 4].try_into().unwrap());
        let computed = crc32c::crc32c(&self.bytes[CRC_AT + 4..]);
        if stored != computed {
            bail!(
                "the batch at offset {} fails its CRC check (stored {stored:08x}, computed {computed:08x}): it was damaged on disk or on the wire",
                self.base_offset
            );
        }
        Ok(())
    }

    /// Calls `f` for every record, in offset order, decompressing the batch when it is;
    /// fails on a batch whose CRC does not match.
    pub fn for_each_record(&self, mut f: impl FnMut(&Record) -> Result<()>) -> Result<()> {
        self.verify_crc()?;
        let body = &self.bytes[HEADER_LEN..];
        let decompressed;
        let mut data: &[u8] = match self.attributes & 0x7 {
            0 => body,
            codec => {
                decompressed = decompress(codec, body).with_context(|| {
                    format!("decompressing the batch at offset {}", self.base_offset)
                })?;
                &decompressed
            }
        };
        let log_append = self.attributes & TIMESTAMP_LOG_APPEND != 0;
        for _ in 0..self.record_count {
            let length = varint(&mut data)?;
            let length = usize::try_from(length).map_err(|_| anyhow!("negative record length"))?;
            if data.len() < length {
                bail!(
                    "a record runs past its batch at offset {}",
                    self.base_offset
                );
            }
            let (mut r, rest) = data.split_at(length);
            data = rest;
            let _attributes = take(&mut r, 1)?;
            let timestamp_delta = varint(&mut r)?;
            let offset_delta = varint(&mut r)?;
            let key = bytes_field(&mut r)?;
            let value = bytes_field(&mut r)?;
            let header_count = varint(&mut r)?;
            let corrupt = || {
                anyhow!(
                    "a record of the batch at offset {} is corrupt",
                    self.base_offset
                )
            };
            f(&Record {
                offset: self
                    .base_offset
                    .checked_add(offset_delta)
                    .ok_or_else(corrupt)?,
                timestamp: if log_append {
                    self.max_timestamp
                } else {
                    self.base_timestamp
                        .checked_add(timestamp_delta)
                        .ok_or_else(corrupt)?
                },
                key,
                value,
                header_count: header_count.max(0) as usize,
                headers: r,
            })?;
        }
        Ok(())
    }
}

/// One record, borrowed from its batch.
pub struct Record<'a> {
    pub offset: i64,
    pub timestamp: i64,
    pub key: Option<&'a [u8]>,
    pub value: Option<&'a [u8]>,
    header_count: usize,
    headers: &'a [u8],
}

impl<'a> Record<'a> {
    /// The value of the first header named `name`.
    pub fn header(&self, name: &str) -> Option<&'a [u8]> {
        let mut h = self.headers;
        for _ in 0..self.header_count {
            let key = bytes_field(&mut h).ok()?;
            let value = bytes_field(&mut h).ok()?;
            if key == Some(name.as_bytes()) {
                return value;
            }
        }
        None
    }
}

/// A zigzag varint (Kafka's varint and varlong).
fn varint(data: &mut &[u8]) -> Result<i64> {
    let mut raw: u64 = 0;
    for (i, byte) in data.iter().enumerate().take(10) {
        raw |= u64::from(byte & 0x7f) << (7 * i);
        if byte & 0x80 == 0 {
            *data = &data[i + 1..];
            return Ok((raw >> 1) as i64 ^ -((raw & 1) as i64));
        }
    }
    bail!("a varint runs past its record")
}

fn take<'a>(data: &mut &'a [u8], n: usize) -> Result<&'a [u8]> {
    if data.len() < n {
        bail!("a field runs past its record");
    }
    let (head, rest) = data.split_at(n);
    *data = rest;
    Ok(head)
}

/// A length-prefixed byte field; length -1 is null.
fn bytes_field<'a>(data: &mut &'a [u8]) -> Result<Option<&'a [u8]>> {
    match varint(data)? {
        -1 => Ok(None),
        n if n < 0 => bail!("a field of length {n}"),
        n => take(data, n as usize).map(Some),
    }
}

/// The records section of a compressed batch: 1 gzip, 2 snappy, 3 lz4, 4 zstd.
fn decompress(codec: i16, body: &[u8]) -> Result<Vec<u8>> {
    let mut out = Vec::with_capacity(body.len() * 4);
    // What is left of the limit for the whole section, plus one byte to tell a section of
    // exactly the limit from a larger one.
    let limited = |reader: &mut dyn Read, out: &mut Vec<u8>| {
        let left = (MAX_DECOMPRESSED + 1).saturating_sub(out.len() as u64);
        reader.take(left).read_to_end(out)
    };
    match codec {
        1 => {
            limited(&mut flate2::read::MultiGzDecoder::new(body), &mut out)?;
        }
        2 => snappy(body, &mut out)?,
        3 => {
            limited(&mut lz4_flex::frame::FrameDecoder::new(body), &mut out)?;
        }
        4 => {
            let mut input = body;
            while !input.is_empty() && out.len() as u64 <= MAX_DECOMPRESSED {
                let mut frame = ruzstd::decoding::StreamingDecoder::new(&mut input)
                    .map_err(|e| anyhow!("zstd: {e}"))?;
                limited(&mut frame, &mut out)?;
            }
        }
        other => bail!("unknown compression codec {other}"),
    }
    if out.len() as u64 > MAX_DECOMPRESSED {
        bail!("its records take more than {} MiB", MAX_DECOMPRESSED >> 20);
    }
    Ok(out)
}

/// Java's producers frame snappy the xerial way (a magic header, then length-prefixed
/// blocks); librdkafka reads both that and a plain snappy block, and so do we.
fn snappy(body: &[u8], out: &mut Vec<u8>) -> Result<()> {
    const XERIAL: &[u8] = b"\x82SNAPPY\x00";
    let mut decoder = snap::raw::Decoder::new();
    let mut block = |block: &[u8], out: &mut Vec<u8>| {
        // The block's header states its size: checked before anything is allocated.
        let size = snap::raw::decompress_len(block)?;
        if (out.len() + size) as u64 > MAX_DECOMPRESSED {
            bail!("its records take more than {} MiB", MAX_DECOMPRESSED >> 20);
        }
        let at = out.len();
        out.resize(at + size, 0);
        let written = decoder.decompress(block, &mut out[at..])?;
        out.truncate(at + written);
        Ok(())
    };
    if !body.starts_with(XERIAL) {
        return block(body, out);
    }
    // Magic (8), version (4), compatible version (4), then (length, block) pairs.
    let mut blocks = body
        .get(16..)
        .ok_or_else(|| anyhow!("short xerial header"))?;
    while !blocks.is_empty() {
        let length = u32::from_be_bytes(take(&mut blocks, 4)?.try_into().unwrap()) as usize;
        block(take(&mut blocks, length)?, out)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn zigzag(n: i64) -> Vec<u8> {
        let mut raw = ((n << 1) ^ (n >> 63)) as u64;
        let mut out = Vec::new();
        loop {
            let byte = (raw & 0x7f) as u8;
            raw >>= 7;
            if raw == 0 {
                out.push(byte);
                return out;
            }
            out.push(byte | 0x80);
        }
    }

    #[test]
    fn varints_round_trip_kafkas_zigzag() {
        for n in [
            0i64,
            -1,
            1,
            63,
            -64,
            64,
            300,
            -300,
            i32::MAX as i64,
            i64::MIN,
            i64::MAX,
        ] {
            let bytes = zigzag(n);
            let mut slice = bytes.as_slice();
            assert_eq!(varint(&mut slice).unwrap(), n);
            assert!(slice.is_empty());
        }
        assert!(varint(&mut [0x80u8, 0x80].as_slice()).is_err(), "cut short");
    }

    #[test]
    fn snappy_plain_and_xerial_framed_and_a_claimed_size_over_the_limit() {
        let mut encoder = snap::raw::Encoder::new();
        let (a, b) = (b"first block ".repeat(50), b"second block".repeat(50));
        let plain = encoder.compress_vec(&a).unwrap();
        assert_eq!(decompress(2, &plain).unwrap(), a);
        let mut framed = b"\x82SNAPPY\x00\0\0\0\x01\0\0\0\x01".to_vec();
        for block in [&a, &b] {
            let compressed = encoder.compress_vec(block).unwrap();
            framed.extend((compressed.len() as u32).to_be_bytes());
            framed.extend(compressed);
        }
        assert_eq!(decompress(2, &framed).unwrap(), [a, b].concat());
        // A block header claiming 300 MiB is refused before anything is allocated.
        let mut huge = Vec::new();
        let mut n: u64 = 300 << 20;
        while n >= 0x80 {
            huge.push((n as u8) | 0x80);
            n >>= 7;
        }
        huge.push(n as u8);
        huge.extend([0u8; 8]);
        let err = decompress(2, &huge).unwrap_err().to_string();
        assert!(err.contains("more than 256 MiB"), "{err}");
    }

    /// A batch of `count` uncompressed records from `base`, encoded by kafka-protocol.
    fn encoded(base: i64, count: i64, timestamp: i64) -> Vec<u8> {
        use kafka_protocol::records::{
            Compression, Record, RecordBatchEncoder, RecordEncodeOptions, TimestampType,
        };
        let records: Vec<Record> = (0..count)
            .map(|i| Record {
                transactional: false,
                control: false,
                delete_horizon: false,
                partition_leader_epoch: -1,
                producer_id: -1,
                producer_epoch: -1,
                timestamp_type: TimestampType::Creation,
                offset: base + i,
                // offset − sequence constant: the encoder keeps the records in one batch.
                sequence: i as i32,
                timestamp: timestamp + i,
                key: Some(Bytes::from(format!("k{i}"))),
                value: Some(Bytes::from_static(b"v")),
                headers: [(
                    kafka_protocol::protocol::StrBytes::from_static_str("h"),
                    Some(Bytes::from(format!("{}", base + i))),
                )]
                .into_iter()
                .collect(),
            })
            .collect();
        let mut buf = bytes::BytesMut::new();
        RecordBatchEncoder::encode(
            &mut buf,
            &records,
            &RecordEncodeOptions {
                version: 2,
                compression: Compression::None,
            },
        )
        .unwrap();
        buf.to_vec()
    }

    #[test]
    fn batches_and_records_as_another_encoder_writes_them() {
        let mut records = encoded(10, 3, 1_000);
        records.extend(encoded(13, 2, 5_000));
        let found = batches(&Bytes::from(records.clone())).unwrap();
        let spans: Vec<_> = found
            .iter()
            .map(|b| (b.base_offset, b.last_offset, b.first_timestamp()))
            .collect();
        assert_eq!(spans, [(10, 12, 1_000), (13, 14, 5_000)]);
        let mut seen = Vec::new();
        for b in &found {
            b.for_each_record(|r| {
                seen.push((
                    r.offset,
                    r.timestamp,
                    String::from_utf8(r.key.unwrap().to_vec()).unwrap(),
                    String::from_utf8(r.header("h").unwrap().to_vec()).unwrap(),
                ));
                assert_eq!(r.header("absent"), None);
                Ok(())
            })
            .unwrap();
        }
        assert_eq!(seen[0], (10, 1_000, "k0".into(), "10".into()));
        assert_eq!(seen[4], (14, 5_001, "k1".into(), "14".into()));
        let mut damaged = records.clone();
        let last = damaged.len() - 1;
        damaged[last] ^= 1; // the last header value of the second batch: "14" → "15"
        let found = batches(&Bytes::from(damaged)).unwrap();
        assert!(found[0].for_each_record(|_| Ok(())).is_ok());
        let err = found[1]
            .for_each_record(|_| Ok(()))
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("the batch at offset 13 fails its CRC check"),
            "{err}"
        );
        assert!(
            batches(&Bytes::from(records[..20].to_vec()))
                .unwrap()
                .is_empty(),
            "a truncated batch waits for the next fetch"
        );
    }

    #[test]
    fn log_append_time_is_the_brokers_time_for_every_record() {
        let mut bytes = encoded(0, 3, 1_000);
        // What a broker does to a topic with message.timestamp.type=LogAppendTime: sets
        // the attribute and the max timestamp; the base stays the producer's.
        let attributes = i16::from_be_bytes([bytes[21], bytes[22]]) | TIMESTAMP_LOG_APPEND;
        bytes[21..23].copy_from_slice(&attributes.to_be_bytes());
        bytes[35..43].copy_from_slice(&9_000i64.to_be_bytes());
        let crc = crc32c::crc32c(&bytes[CRC_AT + 4..]);
        bytes[CRC_AT..CRC_AT + 4].copy_from_slice(&crc.to_be_bytes());
        let batch = batches(&Bytes::from(bytes)).unwrap().remove(0);
        assert_eq!(batch.first_timestamp(), 9_000);
        let mut times = Vec::new();
        batch
            .for_each_record(|r| {
                times.push(r.timestamp);
                Ok(())
            })
            .unwrap();
        assert_eq!(times, [9_000, 9_000, 9_000]);
    }

    #[test]
    fn a_partial_batch_at_the_end_is_left_for_the_next_fetch() {
        let mut batch = vec![0u8; HEADER_LEN];
        batch[0..8].copy_from_slice(&5i64.to_be_bytes());
        batch[8..12].copy_from_slice(&((HEADER_LEN - LOG_OVERHEAD) as i32).to_be_bytes());
        batch[16] = 2;
        batch[23..27].copy_from_slice(&3i32.to_be_bytes());
        let mut two = batch.clone();
        two.extend_from_slice(&batch[..30]);
        let found = batches(&Bytes::from(two)).unwrap();
        assert_eq!(found.len(), 1);
        assert_eq!((found[0].base_offset, found[0].last_offset), (5, 8));
        let mut old = batch;
        old[16] = 1;
        let err = batches(&Bytes::from(old)).unwrap_err().to_string();
        assert!(err.contains("message format v1 at offset 5"), "{err}");
    }
}
