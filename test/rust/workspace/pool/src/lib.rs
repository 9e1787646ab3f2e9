//! A library function with a 128 KiB array, and a helper that runs it on
//! threads with small stacks (rust-embedded/discovery#306's shape).
use std::thread;

const WORDS: usize = 16384; // 128 KiB of u64

#[inline(never)]
pub fn work(seed: u64) -> u64 {
    let mut buf = [0u64; WORDS];
    let mut x = seed;
    for slot in buf.iter_mut() {
        x = x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        *slot = x;
    }
    let mut s = 0u64;
    for i in (0..WORDS).rev() {
        s = s.rotate_left(5) ^ buf[(i * 7919) % WORDS];
    }
    s
}

/// One hash of `threads` threads with `stack_kib` KiB stacks, each calling
/// `work` `rounds` times.
pub fn run(stack_kib: usize, threads: usize, rounds: usize) -> u64 {
    let workers: Vec<_> = (0..threads)
        .map(|t| {
            thread::Builder::new()
                .stack_size(stack_kib * 1024)
                .spawn(move || {
                    let mut h = 0u64;
                    for r in 0..rounds {
                        h = h.rotate_left(7) ^ work((t * 1000 + r) as u64);
                    }
                    h
                })
                .unwrap()
        })
        .collect();
    workers
        .into_iter()
        .fold(0u64, |all, w| all.rotate_left(13) ^ w.join().unwrap())
}
