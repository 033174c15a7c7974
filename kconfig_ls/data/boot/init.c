/*
 * The init of the validation initramfs (kconfig-ls validate --boot).
 *
 * Prints a marker line, the running kernel's release (uname -r) and
 * /proc/version on the console, then restarts the machine, which ends
 * QEMU when it runs with -no-reboot.  Built with `gcc -static`: the
 * initramfs holds nothing else.
 */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/utsname.h>
#include <unistd.h>

#define MARKER "KCONFIG-LS-BOOT-OK"

int main(void)
{
	struct utsname u;
	char version[512];
	ssize_t n = -1;
	int fd;

	printf("\n%s\n", MARKER);
	if (uname(&u) == 0)
		printf("uname -r: %s\n", u.release);
	if (mount("proc", "/proc", "proc", 0, NULL) == 0) {
		fd = open("/proc/version", O_RDONLY);
		if (fd >= 0) {
			n = read(fd, version, sizeof(version) - 1);
			close(fd);
		}
	}
	if (n > 0) {
		version[n] = '\0';
		printf("/proc/version: %s", version);
		if (version[n - 1] != '\n')
			printf("\n");
	} else {
		printf("/proc/version: unavailable\n");
	}
	printf("%s-END\n", MARKER);
	fflush(stdout);
	sync();
	reboot(RB_AUTOBOOT);
	return 0;
}
