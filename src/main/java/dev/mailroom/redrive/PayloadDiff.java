package dev.mailroom.redrive;

import java.util.ArrayList;
import java.util.List;

/** A line diff of two payloads (longest common subsequence), printed like {@code diff -u} without hunks. */
public final class PayloadDiff {

    /** Larger payloads are compared as "replaced" instead of line by line (the table is n × m). */
    static final int MAX_LINES = 2_000;

    private PayloadDiff() {
    }

    /**
     * A diff as a viewer may see it: both sides are rebuilt from the diff (it prints every line, see
     * {@link #diff}), each is redacted by {@code redact} (JSON in, redacted JSON or null out), and the redacted
     * sides are compared again. Null when a side cannot be redacted (not JSON): then the diff is withheld.
     */
    public static String redact(String diff, java.util.function.UnaryOperator<String> redact) {
        if (diff == null) {
            return null;
        }
        StringBuilder before = new StringBuilder();
        StringBuilder after = new StringBuilder();
        String[] lines = diff.split("\n", -1);
        for (int i = 2; i < lines.length; i++) {
            String line = lines[i];
            if (line.isEmpty()) {
                continue;
            }
            char side = line.charAt(0);
            String text = line.substring(1) + "\n";
            if (side != '+') {
                before.append(text);
            }
            if (side != '-') {
                after.append(text);
            }
        }
        String a = redact.apply(before.toString());
        String b = redact.apply(after.toString());
        return a == null || b == null ? null : diff(a, b);
    }

    public static String diff(String before, String after) {
        String[] a = before.split("\n", -1);
        String[] b = after.split("\n", -1);
        StringBuilder out = new StringBuilder("--- original\n+++ revision\n");
        if (a.length > MAX_LINES || b.length > MAX_LINES) {
            for (String line : a) {
                out.append('-').append(line).append('\n');
            }
            for (String line : b) {
                out.append('+').append(line).append('\n');
            }
            return out.toString();
        }
        int[][] lcs = new int[a.length + 1][b.length + 1];
        for (int i = a.length - 1; i >= 0; i--) {
            for (int j = b.length - 1; j >= 0; j--) {
                lcs[i][j] = a[i].equals(b[j]) ? lcs[i + 1][j + 1] + 1 : Math.max(lcs[i + 1][j], lcs[i][j + 1]);
            }
        }
        List<String> lines = new ArrayList<>();
        int i = 0;
        int j = 0;
        while (i < a.length && j < b.length) {
            if (a[i].equals(b[j])) {
                lines.add(" " + a[i]);
                i++;
                j++;
            } else if (lcs[i + 1][j] >= lcs[i][j + 1]) {
                lines.add("-" + a[i++]);
            } else {
                lines.add("+" + b[j++]);
            }
        }
        while (i < a.length) {
            lines.add("-" + a[i++]);
        }
        while (j < b.length) {
            lines.add("+" + b[j++]);
        }
        lines.forEach(l -> out.append(l).append('\n'));
        return out.toString();
    }
}
