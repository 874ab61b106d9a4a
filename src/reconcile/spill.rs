//! The memory a comparison may use, and what lies beyond it: past the budget a list's
//! ids are sorted into a run on disk (a nameless file in a scratch directory of the
//! run's own) and the runs are merged back in order, so the answer is the one the
//! in-memory path gives, in bounded memory.

use crate::units::format_size;
use anyhow::{anyhow, Result};
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::fs::File;
use std::io::{self, BufRead, BufReader, BufWriter, Seek, Write};
use std::marker::PhantomData;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

/// Runs a list keeps of one kind: each is an open file (and, merged, a read buffer), so
/// past this many they are merged into one as the list spills. With every list of a
/// comparison at it, the files stay well under the usual limit of 1024.
const MAX_OPEN_RUNS: usize = 16;
const READ_BUFFER: usize = 128 << 10;
const WRITE_BUFFER: usize = 1 << 20;

/// A directory of the run's own that sorted runs go to, removed when dropped. The
/// application makes it: where such a directory may be made, and how safely, is its
/// policy (indoubt's is src/fsafe.rs's `ScratchDir`), not this library's.
pub trait Scratch: Send {
    /// Where it is, for messages.
    fn path(&self) -> &Path;
    /// A file without a name in it: its space is given back when the handle closes.
    fn nameless_file(&self) -> io::Result<File>;
}

/// Makes the scratch directory in the parent given to [`Budget::new`].
pub type MakeScratch = fn(&Path) -> Result<Box<dyn Scratch>>;

/// The bytes every list of one comparison may hold together, and the runs past them.
pub struct Budget {
    limit: usize,
    used: AtomicUsize,
    spilled: AtomicU64,
    parent: PathBuf,
    make: MakeScratch,
    /// Made at the first spill: most comparisons never need it.
    dir: Mutex<Option<Box<dyn Scratch>>>,
}

impl Budget {
    /// `parent`: where `make` makes the scratch directory when the lists outgrow `limit`.
    pub fn new(limit: u64, parent: PathBuf, make: MakeScratch) -> Arc<Budget> {
        fixed_mmap_threshold();
        Arc::new(Budget {
            limit: usize::try_from(limit).unwrap_or(usize::MAX),
            used: AtomicUsize::new(0),
            spilled: AtomicU64::new(0),
            parent,
            make,
            dir: Mutex::new(None),
        })
    }

    /// Bytes written to runs so far.
    pub fn spilled(&self) -> u64 {
        self.spilled.load(Ordering::Relaxed)
    }

    /// What a list reserves at a time: small against the budget, so that the lists share
    /// it, and never below a page's worth of ids, so that no run is trivially small.
    pub(super) fn chunk(&self) -> usize {
        (self.limit / 64).clamp(4 << 10, 1 << 20)
    }

    pub(super) fn take(&self, bytes: usize) -> bool {
        self.used
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |used| {
                used.checked_add(bytes).filter(|&after| after <= self.limit)
            })
            .is_ok()
    }

    /// Every list holds one chunk even when the others hold the whole budget (the budget
    /// is then exceeded by at most a chunk per list): without it a list that gets an id
    /// now and then would spill a run of one id each time.
    pub(super) fn take_anyway(&self, bytes: usize) {
        self.used.fetch_add(bytes, Ordering::Relaxed);
    }

    pub(super) fn give(&self, bytes: usize) {
        self.used.fetch_sub(bytes, Ordering::Relaxed);
    }

    fn file(&self) -> Result<File> {
        let mut dir = self.dir.lock().unwrap_or_else(|p| p.into_inner());
        if dir.is_none() {
            *dir = Some((self.make)(&self.parent)?);
        }
        let dir = dir.as_ref().expect("made above");
        dir.nameless_file()
            .map_err(|e| self.write_error(dir.path().display().to_string(), e))
    }

    fn where_spilled(&self) -> String {
        let dir = self.dir.lock().unwrap_or_else(|p| p.into_inner());
        dir.as_ref().map_or_else(
            || self.parent.display().to_string(),
            |d| d.path().display().to_string(),
        )
    }

    /// A full disk is said as such: the comparison stops, it never answers from part of
    /// the ids.
    fn write_error(&self, at: String, e: io::Error) -> anyhow::Error {
        let full = matches!(e.raw_os_error(), Some(libc::ENOSPC) | Some(libc::EDQUOT));
        if full {
            OutOfSpace {
                at,
                spilled: self.spilled(),
                error: e,
            }
            .into()
        } else {
            anyhow!(e).context(format!("writing sorted runs to the scratch directory {at}"))
        }
    }
}

/// The scratch directory's file system filled up (or the user's quota): the comparison
/// stops, it never answers from part of the ids.
#[derive(Debug)]
pub struct OutOfSpace {
    /// The scratch directory.
    pub at: String,
    /// Bytes of sorted runs written before.
    pub spilled: u64,
    pub error: io::Error,
}

impl std::fmt::Display for OutOfSpace {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "the scratch directory {} ran out of space after {} of sorted runs ({}): the comparison cannot finish, and no partial answer is given",
            self.at,
            format_size(self.spilled),
            self.error
        )
    }
}

impl std::error::Error for OutOfSpace {}

/// A list's memory is counted by what it holds, so freed memory must go back to the
/// system, and a list growing must not leave its old block behind. glibc serves large
/// blocks from mmap, and then grows them with mremap (no copy) and unmaps them when
/// freed, but only past a threshold it raises after each free to up to 32 MiB; below it
/// a doubling Vec leaves every old block in the heap (measured: 122 MiB over a 512 MiB
/// budget at 100M ids). A fixed threshold keeps every list buffer past 256 KiB in mmap.
fn fixed_mmap_threshold() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt only sets a tunable of glibc's allocator; any value is valid.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, 256 << 10);
    }
}

/// What a list holds: numbers or text.
pub trait Item: Ord + Send + Sized + 'static {
    /// What a run's writer and reader keep from one item to the next.
    type Codec: Default + Send;
    /// Bytes it takes in memory, the allocator's share included (an upper bound).
    fn cost(&self) -> usize;
    /// Writes it after the items before it in a run (in order).
    fn write(&self, codec: &mut Self::Codec, out: &mut impl Write) -> io::Result<usize>;
    /// The next item, or None at the end of the run.
    fn read(codec: &mut Self::Codec, input: &mut impl BufRead) -> io::Result<Option<Self>>;
}

/// Numbers go to a run as the difference from the one before, in LEB128: ids of a
/// window are dense, so most take a byte instead of eight, which is less to write and
/// to read back (at 100M ids a side, 144 MiB of runs instead of 1.1 GiB, and 4 s less).
impl Item for u64 {
    type Codec = u64;

    fn cost(&self) -> usize {
        8
    }

    fn write(&self, previous: &mut u64, out: &mut impl Write) -> io::Result<usize> {
        let mut delta = *self - *previous;
        *previous = *self;
        let mut bytes = [0u8; 10];
        let mut len = 0;
        loop {
            let low = (delta & 0x7f) as u8;
            delta >>= 7;
            if delta == 0 {
                bytes[len] = low;
                len += 1;
                break;
            }
            bytes[len] = low | 0x80;
            len += 1;
        }
        out.write_all(&bytes[..len]).map(|_| len)
    }

    fn read(previous: &mut u64, input: &mut impl BufRead) -> io::Result<Option<u64>> {
        let (mut delta, mut shift) = (0u64, 0u32);
        loop {
            let buffer = input.fill_buf()?;
            if buffer.is_empty() {
                return match shift {
                    0 => Ok(None),
                    _ => Err(io::ErrorKind::UnexpectedEof.into()),
                };
            }
            let mut used = 0;
            let mut done = false;
            for &byte in buffer {
                used += 1;
                if shift > 63 {
                    return Err(io::Error::new(
                        io::ErrorKind::InvalidData,
                        "a run's number overflows",
                    ));
                }
                delta |= u64::from(byte & 0x7f) << shift;
                if byte & 0x80 == 0 {
                    done = true;
                    break;
                }
                shift += 7;
            }
            input.consume(used);
            if done {
                *previous += delta;
                return Ok(Some(*previous));
            }
        }
    }
}

impl Item for Box<str> {
    type Codec = ();

    /// The pointer and length, and the heap block malloc gives: 8 bytes of header, in
    /// 16-byte steps, at least 32.
    fn cost(&self) -> usize {
        16 + (self.len() + 8).div_ceil(16).max(2) * 16
    }

    fn write(&self, _: &mut (), out: &mut impl Write) -> io::Result<usize> {
        let len = u32::try_from(self.len())
            .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "an id over 4 GiB"))?;
        out.write_all(&len.to_le_bytes())?;
        out.write_all(self.as_bytes())?;
        Ok(4 + self.len())
    }

    fn read(_: &mut (), input: &mut impl BufRead) -> io::Result<Option<Box<str>>> {
        if input.fill_buf()?.is_empty() {
            return Ok(None);
        }
        let mut len = [0; 4];
        input.read_exact(&mut len)?;
        let mut bytes = vec![0; u32::from_le_bytes(len) as usize];
        input.read_exact(&mut bytes)?;
        String::from_utf8(bytes)
            .map(String::into_boxed_str)
            .map(Some)
            .map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e))
    }
}

/// A sorted run on disk.
struct Run<T> {
    file: File,
    item: PhantomData<T>,
}

/// One list's items of one kind: those being added, the blocks other lists handed over
/// (never copied into one: copying a block while it exists would hold it twice), and
/// the runs spilled.
pub struct Pile<T: Item> {
    pub(super) memory: Vec<T>,
    blocks: Vec<Vec<T>>,
    runs: Vec<Run<T>>,
}

impl<T: Item> Default for Pile<T> {
    fn default() -> Self {
        Pile {
            memory: Vec::new(),
            blocks: Vec::new(),
            runs: Vec::new(),
        }
    }
}

impl<T: Item> Pile<T> {
    /// Sorts what is in memory into runs, and gives its memory back.
    pub(super) fn spill(&mut self, budget: &Budget) -> Result<()> {
        let memory = std::mem::take(&mut self.memory);
        for mut block in std::iter::once(memory).chain(std::mem::take(&mut self.blocks)) {
            if block.is_empty() {
                continue;
            }
            block.sort_unstable();
            let mut items = block.into_iter();
            self.runs.push(write_run(budget, || Ok(items.next()))?);
        }
        self.merge_runs_past(MAX_OPEN_RUNS, budget)
    }

    /// Merges the runs into one while there are more than `most`.
    fn merge_runs_past(&mut self, most: usize, budget: &Budget) -> Result<()> {
        if self.runs.len() > most {
            let mut merged = Sorted::merge(std::mem::take(&mut self.runs), Vec::new())?;
            let run = write_run(budget, || merged.pop())?;
            self.runs.push(run);
        }
        Ok(())
    }

    pub(super) fn append(&mut self, other: Pile<T>) {
        self.blocks.push(other.memory);
        self.blocks.extend(other.blocks);
        self.blocks.retain(|b| !b.is_empty());
        self.runs.extend(other.runs);
    }

    #[cfg(test)]
    pub(super) fn runs(&self) -> usize {
        self.runs.len()
    }

    #[cfg(test)]
    pub(super) fn len_in_memory(&self) -> usize {
        self.memory.len() + self.blocks.iter().map(Vec::len).sum::<usize>()
    }

    /// Everything in order: each block sorted, merged with the runs.
    pub(super) fn into_sorted(mut self, budget: &Budget) -> Result<Sorted<T>> {
        let mut blocks = std::mem::take(&mut self.blocks);
        blocks.push(std::mem::take(&mut self.memory));
        blocks.retain(|b| !b.is_empty());
        for block in &mut blocks {
            block.sort_unstable();
        }
        if self.runs.is_empty() && blocks.len() <= 1 {
            return Ok(Sorted::Memory(blocks.pop().unwrap_or_default().into_iter()));
        }
        // With other lists' runs appended there may be more again.
        self.merge_runs_past(MAX_OPEN_RUNS, budget)?;
        Sorted::merge(self.runs, blocks)
    }
}

/// Writes the items `next` gives (in order) to a new run.
fn write_run<T: Item>(
    budget: &Budget,
    mut next: impl FnMut() -> Result<Option<T>>,
) -> Result<Run<T>> {
    let mut file = budget.file()?;
    let failed = |e| budget.write_error(budget.where_spilled(), e);
    let mut out = BufWriter::with_capacity(WRITE_BUFFER, &mut file);
    let mut bytes = 0u64;
    let mut codec = T::Codec::default();
    while let Some(item) = next()? {
        bytes += item.write(&mut codec, &mut out).map_err(failed)? as u64;
        if bytes >= 64 << 20 {
            budget.spilled.fetch_add(bytes, Ordering::Relaxed);
            bytes = 0;
        }
    }
    out.flush().map_err(failed)?;
    drop(out);
    budget.spilled.fetch_add(bytes, Ordering::Relaxed);
    file.rewind()
        .map_err(|e| anyhow!(e).context("rewinding a sorted run"))?;
    Ok(Run {
        file,
        item: PhantomData,
    })
}

/// A list's items in order.
pub enum Sorted<T: Item> {
    Memory(std::vec::IntoIter<T>),
    Merge {
        /// Each input's head, smallest first; the index names the input.
        heads: BinaryHeap<Reverse<(T, usize)>>,
        inputs: Vec<Input<T>>,
    },
}

pub enum Input<T: Item> {
    Memory(std::vec::IntoIter<T>),
    Run(BufReader<File>, T::Codec),
}

impl<T: Item> Input<T> {
    fn next(&mut self) -> Result<Option<T>> {
        match self {
            Input::Memory(items) => Ok(items.next()),
            Input::Run(reader, codec) => {
                T::read(codec, reader).map_err(|e| anyhow!(e).context("reading a sorted run back"))
            }
        }
    }
}

impl<T: Item> Sorted<T> {
    fn merge(runs: Vec<Run<T>>, blocks: Vec<Vec<T>>) -> Result<Sorted<T>> {
        let mut inputs: Vec<Input<T>> = runs
            .into_iter()
            .map(|r| {
                Input::Run(
                    BufReader::with_capacity(READ_BUFFER, r.file),
                    T::Codec::default(),
                )
            })
            .collect();
        inputs.extend(blocks.into_iter().map(|b| Input::Memory(b.into_iter())));
        let mut heads = BinaryHeap::with_capacity(inputs.len());
        for (at, input) in inputs.iter_mut().enumerate() {
            if let Some(item) = input.next()? {
                heads.push(Reverse((item, at)));
            }
        }
        Ok(Sorted::Merge { heads, inputs })
    }

    pub fn pop(&mut self) -> Result<Option<T>> {
        match self {
            Sorted::Memory(items) => Ok(items.next()),
            Sorted::Merge { heads, inputs } => {
                let Some(Reverse((item, at))) = heads.pop() else {
                    return Ok(None);
                };
                if let Some(next) = inputs[at].next()? {
                    heads.push(Reverse((next, at)));
                }
                Ok(Some(item))
            }
        }
    }
}
