// SPDX-License-Identifier: GPL-2.0
/* libFuzzer target for the LLC decoder: a parsed message must re-encode to
 * bytes that parse to the same message and re-encode to the same bytes.
 */
#include "fuzz_eq.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static u8 out[ASMC_LLC_MAX_LEN], out2[ASMC_LLC_MAX_LEN];
	struct asmc_llc_msg m, n;
	struct asmc_llc_hdr hdr;
	struct asmc_llc_rkey e;
	int rc, rh, olen;
	unsigned int i;
	u8 *msg = fuzz_copy(data, size);

	rh = asmc_llc_hdr_parse(msg, size, &hdr);
	rc = asmc_llc_parse(msg, size, &m);
	FUZZ_ASSERT(rh == 0 || rh == -EPROTO || rh == -EOPNOTSUPP);
	FUZZ_ASSERT(rc == 0 || rc == -EPROTO || rc == -EOPNOTSUPP);
	if (rc) {
		free(msg);
		return 0;
	}
	FUZZ_ASSERT(rh == 0 && hdr.type == m.type && hdr.version == m.version &&
		    hdr.flags == m.flags && hdr.length <= size &&
		    size >= ASMC_LLC_LEN);
	FUZZ_ASSERT(m.version == ASMC_LLC_V1 || hdr.length >= ASMC_LLC_LEN);
	if (m.type == ASMC_LLC_ADD_LINK && m.add_link.has_ext) {
		/* every announced entry is inside the message */
		for (i = 0; i < m.add_link.n_rkeys; i++)
			asmc_llc_rkey_get(m.add_link.rkeys_wire, i, &e);
	}
	if (m.type == ASMC_LLC_CONFIRM_RKEY_CONT) {
		FUZZ_ASSERT(asmc_llc_build(out, sizeof(out), &m) == -EINVAL);
		free(msg);
		return 0;
	}
	olen = asmc_llc_build(out, sizeof(out), &m);
	FUZZ_ASSERT(olen >= ASMC_LLC_LEN && olen <= hdr.length &&
		    olen == asmc_llc_len(&m));
	FUZZ_ASSERT(m.version == ASMC_LLC_V2 || olen == ASMC_LLC_LEN);
	FUZZ_ASSERT(asmc_llc_parse(out, olen, &n) == 0);
	FUZZ_ASSERT(llc_eq(&m, &n));
	FUZZ_ASSERT(asmc_llc_build(out2, sizeof(out2), &n) == olen &&
		    !memcmp(out, out2, olen));
	FUZZ_ASSERT(asmc_llc_build(out2, olen - 1, &n) == -ENOSPC);
	free(msg);
	return 0;
}
