// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

// GMP (Debian's libgmp-dev; libgmp10 is on every Debian system, coreutils needs it): the
// DH session's side-channel-silent mpn_sec_powm, and mpz_powm as the fuzz target's
// reference. gmp.h names its functions through macros (mpn_sec_powm is __gmpn_sec_powm),
// which Swift does not expand: Swift calls the real names.
#include <gmp.h>
