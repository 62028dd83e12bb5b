/*
 * colname.c - the one rule for units in the names of columns
 * (colname.h).
 */
#include <stdio.h>
#include <string.h>

#include "colname.h"

char *
colname_unit_word(const char *unit, char *buf, size_t cap)
{
	static const char *const words[][2] = {
		{ "%", "pct" }, { "B", "bytes" }, { "\xc2\xb5s", "us" },
	};
	size_t i, n;

	if (cap == 0)
		return buf;
	if (unit == NULL)
		unit = "";
	for (i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (strcmp(unit, words[i][0]) == 0) {
			snprintf(buf, cap, "%s", words[i][1]);
			return buf;
		}
	for (n = 0; unit[n] != '\0' && n + 1 < cap; n++)
		buf[n] = unit[n] >= 'A' && unit[n] <= 'Z' ?
		    (char)(unit[n] - 'A' + 'a') : unit[n];
	buf[n] = '\0';
	return buf;
}

size_t
colname_stem(const char *name, const char *unit)
{
	char word[32];
	size_t len = strlen(name), n;

	n = strlen(colname_unit_word(unit, word, sizeof(word)));
	if (n == 0 || len < n || strcmp(name + len - n, word) != 0)
		return len;
	if (len == n)
		return 0;
	return name[len - n - 1] == '_' ? len - n - 1 : len;
}

char *
colname_derive(const char *name, const char *unit, const char *role,
    char *buf, size_t cap)
{
	char word[32];
	size_t stem = colname_stem(name, unit);
	int pct = strcmp(role, "delta_pct") == 0;

	colname_unit_word(unit, word, sizeof(word));
	if (pct || stem == strlen(name))
		word[0] = '\0';
	snprintf(buf, cap, "%.*s%s%s%s%s", (int)stem, name,
	    stem > 0 ? "_" : "", role, word[0] != '\0' ? "_" : "", word);
	return buf;
}

char *
colname_header(const char *name, enum value_type type, const char *unit,
    const char *ns_word, char *buf, size_t cap)
{
	char word[32];
	size_t stem;

	if (type == VAL_NS) {
		/* The name may end in the word of its unit, not the file's. */
		stem = colname_stem(name, unit != NULL && *unit != '\0' ?
		    unit : "s");
		snprintf(buf, cap, "%.*s%s%s", (int)stem, name,
		    stem > 0 ? "_" : "", ns_word);
		return buf;
	}
	colname_unit_word(unit, word, sizeof(word));
	if (word[0] == '\0' || colname_stem(name, unit) < strlen(name))
		snprintf(buf, cap, "%s", name);
	else
		snprintf(buf, cap, "%s_%s", name, word);
	return buf;
}
