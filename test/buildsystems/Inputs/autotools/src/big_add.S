/* long big_add(long a, long b): preprocessed assembly (x86-64 SysV). */
#define FIRST %rdi
#define SECOND %rsi
	.text
	.globl	big_add
	.type	big_add, @function
big_add:
	leaq	(FIRST, SECOND), %rax
	ret
	.size	big_add, .-big_add
	.section .note.GNU-stack, "", @progbits
