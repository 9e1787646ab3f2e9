//!   app <stack KiB per thread> <threads> <rounds>
//! Prints the hash of pool::run.
fn main() {
    let args: Vec<usize> = std::env::args()
        .skip(1)
        .map(|a| a.parse().expect("app <stack KiB> <threads> <rounds>"))
        .collect();
    match args[..] {
        [k, t, r] => println!("{:016x}", pool::run(k, t, r)),
        _ => panic!("app <stack KiB> <threads> <rounds>"),
    }
}
