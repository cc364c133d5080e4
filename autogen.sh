#!/bin/sh
# Generate configure and Makefile.in from configure.ac and Makefile.am.
set -e
cd "$(dirname "$0")"
autoreconf --install --force
# configure's checks clean up after themselves with "rm -f core ...", which
# complains about our core/ folder on every check.  Drop the word: a core
# dump from a configure test program is not something to clean up here.
sed -i 's/rm -f [c]ore /rm -f /' configure
