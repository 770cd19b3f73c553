package dev.mailroom.ops.api;

/** Parsing of the API's paging limits. */
final class Limits {

    private Limits() {
    }

    /** The limit as a number within [min, max], or -1 when it is not one. */
    static int parse(String s, int min, int max) {
        try {
            int n = Integer.parseInt(s.trim());
            return n < min || n > max ? -1 : n;
        } catch (NumberFormatException | NullPointerException e) {
            return -1;
        }
    }
}
