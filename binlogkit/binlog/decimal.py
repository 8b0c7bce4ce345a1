"""MySQL's packed binary DECIMAL, decoded losslessly to digits.

Layout (decimal.c bin2decimal): the integer part then the fraction part, each
in groups of 9 decimal digits stored in 4 big-endian bytes, with a shorter
leading (integer) or trailing (fraction) group; the first bit is the sign,
flipped, and negative numbers have every byte inverted.
"""
DIG_PER_DEC1 = 9
DIG2BYTES = (0, 1, 1, 2, 2, 3, 3, 4, 4, 4)


def decimal_bin_size(precision, scale):
    intg = precision - scale
    return (intg // DIG_PER_DEC1 * 4 + DIG2BYTES[intg % DIG_PER_DEC1]
            + scale // DIG_PER_DEC1 * 4 + DIG2BYTES[scale % DIG_PER_DEC1])


def decimal_digits(data, precision, scale):
    """Return (negative, integer_digits_str, fraction_digits_str) of a packed DECIMAL."""
    size = decimal_bin_size(precision, scale)
    raw = bytearray(data[:size])
    if len(raw) < size or not size:
        raise ValueError("decimal value truncated")
    negative = not raw[0] & 0x80
    raw[0] ^= 0x80
    if negative:
        raw = bytearray(b ^ 0xFF for b in raw)
    intg = precision - scale
    pos = 0
    int_parts = []
    lead = DIG2BYTES[intg % DIG_PER_DEC1]
    if lead:
        int_parts.append(str(int.from_bytes(raw[pos:pos + lead], "big")).zfill(intg % DIG_PER_DEC1))
        pos += lead
    for _ in range(intg // DIG_PER_DEC1):
        int_parts.append(str(int.from_bytes(raw[pos:pos + 4], "big")).zfill(9))
        pos += 4
    frac_parts = []
    for _ in range(scale // DIG_PER_DEC1):
        frac_parts.append(str(int.from_bytes(raw[pos:pos + 4], "big")).zfill(9))
        pos += 4
    trail = DIG2BYTES[scale % DIG_PER_DEC1]
    if trail:
        frac_parts.append(str(int.from_bytes(raw[pos:pos + trail], "big")).zfill(scale % DIG_PER_DEC1))
    return negative, "".join(int_parts), "".join(frac_parts)


def decimal_to_text(data, precision, scale):
    """decimal2string(): no leading zeros, exactly `scale` fraction digits."""
    negative, int_digits, frac_digits = decimal_digits(data, precision, scale)
    int_digits = int_digits.lstrip("0") or "0"
    text = int_digits + ("." + frac_digits if scale else "")
    if negative and (int_digits != "0" or frac_digits.strip("0")):
        text = "-" + text
    return text.encode()
