#!/bin/sh
# kaname.exe under Wine with the arguments given: the binary under test when the end-to-end
# tests run inside scripts/test_windows.sh's Wine root (KANAME_TEST_BIN points here, KANAME_EXE
# at the exe). exec: the test's child is Wine's process itself (stdin, exit status, kill).
exec wine "${KANAME_EXE:?KANAME_EXE: the path of kaname.exe}" "$@"
