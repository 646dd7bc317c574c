"""Every doctest case is a ctest test of its own, under its own name.

doctest_discover_tests reads the cases' names as a CMake list, so a name with a ';' (CMake's list separator) is
cut into tests whose filters match no case: they run nothing and pass. 24 cases had gone unrun that way, three of
them failing. This lists each test binary's cases and holds the build's ctest tests to them.

Usage: test_case_names.py BUILD_DIR TEST_BINARY...
"""
import subprocess
import sys


def doctest_cases(binary):
    out = subprocess.run([binary, "--list-test-cases"], check=True, capture_output=True, text=True).stdout
    return [line for line in out.splitlines() if line and not line.startswith(("[doctest]", "=" * 20))]


def ctest_names(build_dir):
    out = subprocess.run(["ctest", "-N", "--test-dir", build_dir], check=True, capture_output=True, text=True).stdout
    names = set()
    for line in out.splitlines():
        head, sep, name = line.partition(": ")
        if sep and head.strip().startswith("Test") and "#" in head:
            names.add(name.strip())
    return names


def main(build_dir, binaries):
    registered = ctest_names(build_dir)
    problems = []
    for binary in binaries:
        for case in doctest_cases(binary):
            if ";" in case:
                problems.append(f"{binary}: '{case}' has a ';', which cuts it into ctest tests that run nothing")
            elif case.strip() not in registered:
                problems.append(f"{binary}: '{case}' is no ctest test of its own")
    for p in problems:
        print(p)
    if not problems:
        print(f"{sum(len(doctest_cases(b)) for b in binaries)} cases, each a ctest test of its own name")
    return 1 if problems else 0


if __name__ == "__main__":
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    sys.exit(main(sys.argv[1], sys.argv[2:]))
