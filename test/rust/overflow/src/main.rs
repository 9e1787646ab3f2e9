//! Worker threads with small stacks and a 128 KiB array each: the shape of
//! embedded and threaded Rust that overflows (rust-embedded/discovery#306).
//!
//!   overflow <stack KiB per thread> <threads> <rounds>
//!
//! Prints one hash of every thread's results; the same for any stack size
//! that holds the array (plain rustc) or whatever ScopeAlloc moves.
use std::thread;

const WORDS: usize = 16384; // 128 KiB of u64

#[inline(never)]
fn work(seed: u64) -> u64 {
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

fn main() {
    let args: Vec<usize> = std::env::args()
        .skip(1)
        .map(|a| a.parse().expect("overflow <stack KiB> <threads> <rounds>"))
        .collect();
    let (stack_kib, threads, rounds) = match args[..] {
        [k, t, r] => (k, t, r),
        _ => panic!("overflow <stack KiB> <threads> <rounds>"),
    };
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
    let mut all = 0u64;
    for w in workers {
        all = all.rotate_left(13) ^ w.join().unwrap();
    }
    println!("{all:016x}");
}
