package io.gpuledger.model;

/**
 * The strings a thread read last, by content: a sample names the same host, instance, job and
 * pool as the one before it from that GPU, and reading it through this table gives back the very
 * {@code String} of last time instead of a new one. Equal strings then compare by reference, and
 * hash once. A direct-mapped table of fixed size: a string that collides with another replaces it.
 */
final class RecentStrings {

    private static final int SIZE = 1 << 14;
    private static final ThreadLocal<RecentStrings> OF_THREAD = ThreadLocal.withInitial(RecentStrings::new);

    private final String[] table = new String[SIZE];

    static RecentStrings ofThisThread() {
        return OF_THREAD.get();
    }

    /** The string of {@code length} characters at {@code offset} of {@code chars}: the one read last time if it is the same. */
    String of(char[] chars, int offset, int length) {
        int hash = 0;
        for (int i = offset; i < offset + length; i++) {
            hash = 31 * hash + chars[i];
        }
        int slot = (hash ^ (hash >>> 14)) & (SIZE - 1);
        String known = table[slot];
        if (known != null && sameAs(known, chars, offset, length)) {
            return known;
        }
        String read = new String(chars, offset, length);
        table[slot] = read;
        return read;
    }

    private static boolean sameAs(String known, char[] chars, int offset, int length) {
        if (known.length() != length) {
            return false;
        }
        for (int i = 0; i < length; i++) {
            if (known.charAt(i) != chars[offset + i]) {
                return false;
            }
        }
        return true;
    }
}
