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


def _groups(data, precision, scale):
    """(negative, leading integer group or None, full integer groups, full fraction
    groups, trailing fraction group or None): the stored numbers, unchecked."""
    size = decimal_bin_size(precision, scale)
    raw = bytearray(data[:size])
    if len(raw) < size or not size:
        raise ValueError("decimal value truncated")
    negative = not raw[0] & 0x80
    raw[0] ^= 0x80
    if negative:
        raw = bytearray(b ^ 0xFF for b in raw)
    intg = precision - scale
    pos, lead, trail = 0, None, None
    nlead = DIG2BYTES[intg % DIG_PER_DEC1]
    if nlead:
        lead = int.from_bytes(raw[:nlead], "big")
        pos = nlead
    int_groups = []
    for _ in range(intg // DIG_PER_DEC1):
        int_groups.append(int.from_bytes(raw[pos:pos + 4], "big"))
        pos += 4
    frac_groups = []
    for _ in range(scale // DIG_PER_DEC1):
        frac_groups.append(int.from_bytes(raw[pos:pos + 4], "big"))
        pos += 4
    if DIG2BYTES[scale % DIG_PER_DEC1]:
        trail = int.from_bytes(raw[pos:], "big")
    return negative, lead, int_groups, frac_groups, trail


def decimal_digits(data, precision, scale):
    """Return (negative, integer_digits_str, fraction_digits_str) of a packed DECIMAL."""
    negative, lead, int_groups, frac_groups, trail = _groups(data, precision, scale)
    intg = precision - scale
    int_parts = [str(lead).zfill(intg % DIG_PER_DEC1)] if lead is not None else []
    int_parts += [str(g).zfill(9) for g in int_groups]
    frac_parts = [str(g).zfill(9) for g in frac_groups]
    if trail is not None:
        frac_parts.append(str(trail).zfill(scale % DIG_PER_DEC1))
    return negative, "".join(int_parts), "".join(frac_parts)


def user_decimal_to_text(data, precision, scale):
    """bin2decimal + decimal2string as a user variable's DECIMAL prints: a digit group
    past what bin2decimal accepts makes the value 0 (a leading integer group up to ten
    times its digits' range is accepted, and prints its low digits in full)."""
    negative, lead, int_groups, frac_groups, trail = _groups(data, precision, scale)
    nlead, ntrail = (precision - scale) % DIG_PER_DEC1, scale % DIG_PER_DEC1
    if (lead is not None and lead >= 10 ** (nlead + 1)
            or trail is not None and trail >= 10 ** ntrail
            or any(g > 999999999 for g in int_groups + frac_groups)):
        return b"0"
    rest = "".join(str(g).zfill(9) for g in int_groups)
    if lead is not None and lead >= 10 ** nlead:     # its top digit dropped, no zero stripped
        int_text = str(lead)[-nlead:] + rest
    else:
        int_text = ((str(lead) if lead is not None else "") + rest).lstrip("0") or "0"
    frac_text = "".join(str(g).zfill(9) for g in frac_groups)
    if trail is not None:
        frac_text += str(trail).zfill(ntrail)
    text = int_text + ("." + frac_text if scale else "")
    return (b"-" if negative else b"") + text.encode()      # a negative zero keeps its sign


def decimal_to_text(data, precision, scale):
    """decimal2string(): no leading zeros, exactly `scale` fraction digits."""
    negative, int_digits, frac_digits = decimal_digits(data, precision, scale)
    int_digits = int_digits.lstrip("0") or "0"
    text = int_digits + ("." + frac_digits if scale else "")
    if negative and (int_digits != "0" or frac_digits.strip("0")):
        text = "-" + text
    return text.encode()
