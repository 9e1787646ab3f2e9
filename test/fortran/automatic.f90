! OpenMP worker threads whose automatic arrays overflow OMP_STACKSIZE
! (llvm-project#88344): work(n) declares real(8) :: a(n), which flang puts
! on the stack of the thread that runs it.
!
!   automatic <n> <calls per task>
!
! prints the 8 tasks' sums; the same whatever holds the arrays.
module work_m
contains
  function work(n, seed) result(s)
    integer, intent(in) :: n, seed
    real(8) :: s
    real(8) :: a(n)          ! automatic array: its size is known at run time
    integer :: i
    do i = 1, n
      a(i) = sin(dble(i + seed))
    end do
    s = 0
    do i = n, 1, -1
      s = s + a(i) * a(mod(i * 7, n) + 1)
    end do
  end function
end module

program automatic
  use work_m
  implicit none
  integer :: t, n, calls, c
  real(8) :: total(8)
  character(len=32) :: arg
  call get_command_argument(1, arg); read(arg, *) n
  call get_command_argument(2, arg); read(arg, *) calls
  total = 0
  !$omp parallel do num_threads(4) private(c)
  do t = 1, 8
    do c = 1, calls
      total(t) = total(t) + work(n, t + c)
    end do
  end do
  !$omp end parallel do
  print '(8f16.6)', total
end program
