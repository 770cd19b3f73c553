package dev.mailroom.job;

import dev.mailroom.platform.Refused;

/**
 * How a recipient search matches a job's normalised addresses ({@link JobRecipient#normalise}), read from what
 * support types in:
 * <ul>
 *   <li>{@code alice@example.com}: that {@link Address} exactly (a display name and capitals are normalised away);</li>
 *   <li>{@code @example.com}: every address of that {@link Domain};</li>
 *   <li>{@code alice*}: every address that starts with it ({@link Prefix}, at least 2 characters);</li>
 *   <li>{@code *example.net}: every address that ends with it ({@link Suffix});</li>
 *   <li>{@code alice}, {@code *alice*}, {@code alice@}: every address that contains it ({@link Contains}), so a
 *       person is found under {@code alice@…} and {@code policy571-alice@…} alike.</li>
 * </ul>
 * A suffix or a part needs at least {@value #MIN_PART} characters: that is what a trigram index
 * ({@code pg_trgm}, V16) can narrow; fewer would read every address. The rule is this one pure type: the SQL
 * of {@link JobSearch#sql} says the same as {@link #matches}, which the table test checks case by case.
 */
public sealed interface RecipientMatch {

    /** The fewest characters of a suffix or a part searched for. */
    int MIN_PART = 3;

    /** The normalised text matched against. */
    String text();

    /** Whether the normalised address {@code address} is one this search finds. */
    boolean matches(String address);

    /** Exactly this address. */
    record Address(String text) implements RecipientMatch {
        @Override
        public boolean matches(String address) {
            return text.equals(address);
        }
    }

    /** Every address whose domain (after its {@code @}) is {@code text}. */
    record Domain(String text) implements RecipientMatch {
        @Override
        public boolean matches(String address) {
            return text.equals(address.substring(address.indexOf('@') + 1));
        }
    }

    /** Every address that starts with {@code text}. */
    record Prefix(String text) implements RecipientMatch {
        @Override
        public boolean matches(String address) {
            return address.startsWith(text);
        }
    }

    /** Every address that ends with {@code text}. */
    record Suffix(String text) implements RecipientMatch {
        @Override
        public boolean matches(String address) {
            return address.endsWith(text);
        }
    }

    /** Every address that contains {@code text} anywhere. */
    record Contains(String text) implements RecipientMatch {
        @Override
        public boolean matches(String address) {
            return address.contains(text);
        }
    }

    /**
     * The match {@code typed} asks for, or null when it is blank; {@link Refused.Invalid} {@code invalid_recipient}
     * with what is accepted when it is none of the forms above.
     */
    static RecipientMatch parse(String typed) {
        if (typed == null || typed.isBlank()) {
            return null;
        }
        String r = typed.trim();
        RecipientMatch m;
        if (r.startsWith("@")) {
            m = new Domain(JobRecipient.normalise(r.substring(1)));
        } else {
            boolean leading = r.startsWith("*");
            boolean trailing = r.length() > 1 && r.endsWith("*");
            String core = JobRecipient.normalise(r.substring(leading ? 1 : 0, r.length() - (trailing ? 1 : 0)));
            if (leading && !trailing) {
                m = new Suffix(core);
            } else if (trailing && !leading) {
                m = new Prefix(core);
            } else if (!leading && isAddress(core)) {
                m = new Address(core);
            } else {
                m = new Contains(core);
            }
        }
        if (!valid(m)) {
            throw new Refused.Invalid("invalid_recipient", "recipient is an address (alice@example.com), a domain "
                    + "(@example.com), the start of one followed by * (alice*, at least 2 characters), its end after * "
                    + "(*example.net) or any part of one (alice or *alice*, at least " + MIN_PART + " characters): "
                    + typed);
        }
        return m;
    }

    private static boolean isAddress(String s) {
        int at = s.indexOf('@');
        return at > 0 && at < s.length() - 1 && s.indexOf('@', at + 1) < 0;
    }

    private static boolean valid(RecipientMatch m) {
        String t = m.text();
        if (t.contains("*")) {
            return false;
        }
        if (m instanceof Domain) {
            return !t.isEmpty() && !t.contains("@");
        }
        if (m instanceof Prefix) {
            return t.length() >= 2;
        }
        return m instanceof Address || t.length() >= MIN_PART;
    }
}
