/* Unit tests of siphash.c: the reference test vectors, 64 and 128 bits. */
#include <inttypes.h>

#include "siphash.h"
#include "unit.h"

/*
 * The 64 vectors of the SipHash paper (Aumasson and Bernstein, 2012,
 * appendix A, and the reference code's vectors.h) for SipHash-2-4 under
 * the key 00 01 .. 0f: entry i is the hash of the i bytes 00 01 .. i-1,
 * its 8 bytes read as a little-endian word.
 */
/* clang-format off */
static const uint64_t vectors[64] = {
	0x726fdb47dd0e0e31ULL, 0x74f839c593dc67fdULL,
	0x0d6c8009d9a94f5aULL, 0x85676696d7fb7e2dULL,
	0xcf2794e0277187b7ULL, 0x18765564cd99a68dULL,
	0xcbc9466e58fee3ceULL, 0xab0200f58b01d137ULL,
	0x93f5f5799a932462ULL, 0x9e0082df0ba9e4b0ULL,
	0x7a5dbbc594ddb9f3ULL, 0xf4b32f46226bada7ULL,
	0x751e8fbc860ee5fbULL, 0x14ea5627c0843d90ULL,
	0xf723ca908e7af2eeULL, 0xa129ca6149be45e5ULL,
	0x3f2acc7f57c29bdbULL, 0x699ae9f52cbe4794ULL,
	0x4bc1b3f0968dd39cULL, 0xbb6dc91da77961bdULL,
	0xbed65cf21aa2ee98ULL, 0xd0f2cbb02e3b67c7ULL,
	0x93536795e3a33e88ULL, 0xa80c038ccd5ccec8ULL,
	0xb8ad50c6f649af94ULL, 0xbce192de8a85b8eaULL,
	0x17d835b85bbb15f3ULL, 0x2f2e6163076bcfadULL,
	0xde4daaaca71dc9a5ULL, 0xa6a2506687956571ULL,
	0xad87a3535c49ef28ULL, 0x32d892fad841c342ULL,
	0x7127512f72f27cceULL, 0xa7f32346f95978e3ULL,
	0x12e0b01abb051238ULL, 0x15e034d40fa197aeULL,
	0x314dffbe0815a3b4ULL, 0x027990f029623981ULL,
	0xcadcd4e59ef40c4dULL, 0x9abfd8766a33735cULL,
	0x0e3ea96b5304a7d0ULL, 0xad0c42d6fc585992ULL,
	0x187306c89bc215a9ULL, 0xd4a60abcf3792b95ULL,
	0xf935451de4f21df2ULL, 0xa9538f0419755787ULL,
	0xdb9acddff56ca510ULL, 0xd06c98cd5c0975ebULL,
	0xe612a3cb9ecba951ULL, 0xc766e62cfcadaf96ULL,
	0xee64435a9752fe72ULL, 0xa192d576b245165aULL,
	0x0a8787bf8ecb74b2ULL, 0x81b3e73d20b49b6fULL,
	0x7fa8220ba3b2eceaULL, 0x245731c13ca42499ULL,
	0xb78dbfaf3a8d83bdULL, 0xea1ad565322a1a0bULL,
	0x60e61c23a3795013ULL, 0x6606d7e446282b93ULL,
	0x6ca4ecb15c5f91e1ULL, 0x9f626da15c9625f3ULL,
	0xe51b38608ef25f57ULL, 0x958a324ceb064572ULL,
};

/*
 * The 64 vectors of SipHash-2-4 with 128-bit output, from the reference
 * code's vectors.h (vectors_sip128), under the same key and messages:
 * entry i is its 16 bytes read as two little-endian words.
 */
static const uint64_t vectors128[64][2] = {
	{ 0xe6a825ba047f81a3ULL, 0x930255c71472f66dULL },
	{ 0x44af996bd8c187daULL, 0x45fc229b11597634ULL },
	{ 0xc75da4a48d227781ULL, 0xe4ff0af6de8ba3fcULL },
	{ 0x4ea967520cb6709cULL, 0x51ed8529b0b6335fULL },
	{ 0xaf8f9c2dc16481f8ULL, 0x7955cd7b7c6e0f7dULL },
	{ 0x886f778059876813ULL, 0x27960e69077a5254ULL },
	{ 0x1386208b33caee14ULL, 0x5ea1d78f30a05e48ULL },
	{ 0x53c1dbd8beebf1a1ULL, 0x3982f01fa64ab8c0ULL },
	{ 0x61f55862baa9623bULL, 0xb49714f364e2830fULL },
	{ 0xabbad90a06994426ULL, 0xed716dbb028b7fc4ULL },
	{ 0x56691478c30d1100ULL, 0xbafbd0f3d34754c9ULL },
	{ 0x77666b3868c55101ULL, 0x18dce5816fdcb4a2ULL },
	{ 0x58f35e9066b226d6ULL, 0x25c13285f64d6382ULL },
	{ 0x108bc0e947e26998ULL, 0xf752b9c44f9329d0ULL },
	{ 0x9cded766aceffc31ULL, 0x024949e45f48c77eULL },
	{ 0x11a8b03399e99354ULL, 0xd9c3cf970fec087eULL },
	{ 0xbb54b067caa4e26eULL, 0x77052385bf1533fdULL },
	{ 0x98b88d73e8063d47ULL, 0x4077e47ac466c054ULL },
	{ 0x8548bf23e4e526a4ULL, 0x23f7aefe81a44d29ULL },
	{ 0xb0fa65cf31770178ULL, 0xb12e51528920d574ULL },
	{ 0x7390223f83fc259eULL, 0xeb3938e8a544933eULL },
	{ 0x215a52be5a498e56ULL, 0x121d073ecd14228aULL },
	{ 0x9a6bd15245b5294aULL, 0xae0aff8e52109c46ULL },
	{ 0xe0f5a9d5dd84d1c9ULL, 0x1c69bf9a9ae28ccfULL },
	{ 0xd850bd78ae79b42dULL, 0xad32618a178a2a88ULL },
	{ 0x7b445e2d045fce8eULL, 0x6f8f8dcbeab95150ULL },
	{ 0xe807c3b3b4530b9cULL, 0x661f147886e0ae7eULL },
	{ 0xe4eaa669af48f2abULL, 0x94eb9e122febd3bfULL },
	{ 0x884b576816da6406ULL, 0xf4ae587302f335b9ULL },
	{ 0xe97d33bfc49d4baaULL, 0xb76a7c463cfdd40cULL },
	{ 0xde6baf1f477f5ceaULL, 0x87226d68d4d71a2bULL },
	{ 0xfcfa233218b03929ULL, 0x353dc4524fde2317ULL },
	{ 0x3efcea5eca56397cULL, 0x68eb4665559d3e36ULL },
	{ 0x321cf0467107c677ULL, 0xcfffa94e5f9db6b6ULL },
	{ 0xdf7e84b86c98a637ULL, 0xde549b30f1f02509ULL },
	{ 0xf9a8a99de6f005a7ULL, 0xc88c3c922e1a2407ULL },
	{ 0x4648c4291f7dc43dULL, 0x11674f90ed769e1eULL },
	{ 0x1a0efce601bf620dULL, 0x2b69d3c551473c0dULL },
	{ 0x9e667cca8b46038cULL, 0xb5e7be4b085efde4ULL },
	{ 0x9c2caf3bb95b8a52ULL, 0xd92bd2d0e5cc7344ULL },
	{ 0xad5dc9951e306adfULL, 0xd83b91c6c80cae97ULL },
	{ 0x397f852c90891180ULL, 0xdbb6705e289135e7ULL },
	{ 0xbb31c2c96a3417e6ULL, 0x5b0ccacc34ae5036ULL },
	{ 0xaa21b7ef3734d927ULL, 0x89df5aecdc211840ULL },
	{ 0x785e9ced9d7d2389ULL, 0x4273cc66b1c9b1d8ULL },
	{ 0x657d5ebf91806d4aULL, 0x4cb150a294fa8911ULL },
	{ 0x89aee75560f9330eULL, 0x022949cf3d0efc3fULL },
	{ 0xd1190b722b431ce6ULL, 0x1b1563dc4bd8c88eULL },
	{ 0xcf82f749f5aee5f7ULL, 0x169b2608a6559037ULL },
	{ 0x4fa5b7d00f038d43ULL, 0x03641a20adf237a8ULL },
	{ 0xe304bf4feed390a5ULL, 0x3f4286f2270d7e24ULL },
	{ 0xc493fe72a1c1e25fULL, 0x38f5f9ae7cd35cb1ULL },
	{ 0x6eb306bd5c32972cULL, 0x7c013a8bd03d13b2ULL },
	{ 0x94ca6b7a2214c892ULL, 0x9ed32a009f65f09fULL },
	{ 0x8c32d80b1150e8dcULL, 0x871d91d64108d5fbULL },
	{ 0x1279dac78449f167ULL, 0xda832592b52be348ULL },
	{ 0xe94ed572cff23819ULL, 0x362a1da96f16947eULL },
	{ 0xfe49ed46961e4874ULL, 0x8e6904163024620fULL },
	{ 0xd8d6a998dea5fc57ULL, 0x1d8a3d58d0386400ULL },
	{ 0xbe1cdcef1cdeec9fULL, 0x595357d9743676d4ULL },
	{ 0x53f128eb000c04e3ULL, 0x40e772d8cb73ca66ULL },
	{ 0xfe1d836a9a009776ULL, 0x7a0f6793591ca9ccULL },
	{ 0xa067f52123545358ULL, 0xbd5947f0a447d505ULL },
	{ 0x4a83502f77d15051ULL, 0x7cbd3f979a063e50ULL },
};
/* clang-format on */

/* The 128-bit variant against its vectors; a tag differs from the 64. */
static void
test_siphash128(const struct siphash_key *key, const unsigned char *m)
{
	int bad = 0, first = -1;

	current = "siphash: SipHash-2-4-128 against the reference vectors";
	for (int i = 0; i < 64; i++) {
		struct siphash_tag t = siphash24_128(key, m, (size_t)i);

		if (t.w[0] != vectors128[i][0] || t.w[1] != vectors128[i][1]) {
			bad++;
			if (first < 0)
				first = i;
		}
	}
	check(
	    bad == 0, "%d of 64 vectors differ (first: %d bytes)", bad, first);
}

void
test_siphash(void)
{
	unsigned char kb[16], m[64];
	struct siphash_key key;
	int bad = 0, first = -1;

	for (int i = 0; i < 16; i++)
		kb[i] = (unsigned char)i;
	for (int i = 0; i < 64; i++)
		m[i] = (unsigned char)i;
	key = siphash_key_of(kb);
	test_siphash128(&key, m);
	current = "siphash: SipHash-2-4 against the reference vectors";
	check(key.k[0] == 0x0706050403020100ULL &&
		key.k[1] == 0x0f0e0d0c0b0a0908ULL,
	    "the key is read little-endian");
	for (int i = 0; i < 64; i++)
		if (siphash24(&key, m, (size_t)i) != vectors[i]) {
			bad++;
			if (first < 0)
				first = i;
		}
	check(
	    bad == 0, "%d of 64 vectors differ (first: %d bytes)", bad, first);
	check(siphash24(&key, NULL, 0) == vectors[0], "no bytes at all");
	/* Another key gives another hash of the same bytes. */
	kb[0] ^= 1;
	key = siphash_key_of(kb);
	check(siphash24(&key, m, 15) != vectors[15], "the key matters");
}
