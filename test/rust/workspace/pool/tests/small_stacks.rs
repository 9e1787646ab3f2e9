//! The integration test a user writes: 4 threads with 64 KiB stacks, each
//! with the 128 KiB array, give what 1 MiB stacks give.
#[test]
fn small_stacks_hold_the_array() {
    // 1 MiB stacks hold the array whatever places it.
    let want = pool::run(1024, 4, 5);
    assert_eq!(pool::run(64, 4, 5), want);
}
