package dev.mailroom.erasure;

import dev.mailroom.job.JobRecipient;
import dev.mailroom.job.JobState;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What an erasure does with one row naming the address: a pure function of the row's kind and state, the table in
 * {@code ErasurePolicyTest} is the whole of it.
 *
 * <ul>
 *   <li>a finished job goes with every row hanging off it; one not finished, or {@code unknown} (an operator has
 *       still to settle whether it was sent), is kept with the address replaced by {@link #MARKER};</li>
 *   <li>an open dead letter is discarded with reason {@value #REASON}, and every dead letter loses its payload and
 *       has the address replaced in its envelope fields;</li>
 *   <li>a dead letter's revision, a held send, a sandbox mail and its attachments, and a webhook call the
 *       reconciliation is done with are deleted; a call it has not read yet keeps its place with the address
 *       replaced (its bounce or complaint still applies to the job);</li>
 *   <li>a suppression keeps the address as its {@link JobRecipient#hashed hash}, so the next job to it is still
 *       withheld;</li>
 *   <li>any other text naming it (timelines, provider answers, alerts, redrive notes) has it replaced.</li>
 * </ul>
 */
public final class ErasurePolicy {

    /** What stands where an erased address stood. */
    public static final String MARKER = "[erased]";
    /** The reason an erasure discards a dead letter with. */
    public static final String REASON = "erased";

    private ErasurePolicy() {
    }

    /** The kinds of row that can name an address. */
    public enum Kind { job, dead_letter, dead_letter_revision, held_send, provider_event, sandbox_mail, suppression, text }

    /** What is known of a row: its kind and its state ({@code mail_job.state}, {@code dead_letter.status}, {@code provider_event.status}; else null). */
    public record Facts(Kind kind, String state) {
    }

    /** What happens to the row. */
    public sealed interface Action {

        /** Deleted, with what hangs off it. */
        record Delete() implements Action {
        }

        /** Kept, the address replaced by {@code marker} wherever the row holds it (a payload is dropped). */
        record Mark(String marker) implements Action {
        }

        /** An open dead letter: discarded with {@code reason}, then marked. */
        record Discard(String reason, String marker) implements Action {
        }

        /** Kept, the address replaced by its one-way {@code hash}. */
        record Hash(String hash) implements Action {
        }
    }

    public static Action decide(Facts f, String normalisedAddress) {
        return switch (f.kind()) {
            case job -> {
                JobState s = JobState.valueOf(f.state());
                yield s.finished() && s != JobState.unknown ? new Action.Delete() : new Action.Mark(MARKER);
            }
            case dead_letter -> "open".equals(f.state()) ? new Action.Discard(REASON, MARKER) : new Action.Mark(MARKER);
            case provider_event -> "received".equals(f.state()) ? new Action.Mark(MARKER) : new Action.Delete();
            case dead_letter_revision, held_send, sandbox_mail -> new Action.Delete();
            case suppression -> new Action.Hash(JobRecipient.hashed(normalisedAddress));
            case text -> new Action.Mark(MARKER);
        };
    }

    /**
     * The normalised form an erasure looks for: as the ledger and the suppression list store an address (trimmed,
     * the addr-spec out of a display form, the whole of it lower-cased: local part too, as Mailroom has always
     * compared them); or a refusal saying what is wrong.
     */
    public static String normalise(String address) {
        if (address == null || address.isBlank()) {
            throw new dev.mailroom.platform.Refused.Invalid("address_required",
                    "name the address: {\"address\": \"alice@example.com\", \"reason\": \"...\"}");
        }
        String a = JobRecipient.normalise(address);
        if (address.strip().length() > 520 || a.length() >= 320 || !a.matches("[^@\\s<>\"]+@[^@\\s<>\"]+\\.?[^@\\s<>\"]*")) {
            throw new dev.mailroom.platform.Refused.Invalid("invalid_address", "not an e-mail address (user@domain)");
        }
        return a;
    }

    /** {@code text} with every occurrence of the address, in any case, replaced by {@code marker}; null stays null. */
    public static String replaced(String text, String normalisedAddress, String marker) {
        if (text == null) {
            return null;
        }
        return Pattern.compile(Pattern.quote(normalisedAddress), Pattern.CASE_INSENSITIVE | Pattern.UNICODE_CASE)
                .matcher(text).replaceAll(Matcher.quoteReplacement(marker));
    }

    /** Whether {@code text} names the address, in any case. */
    public static boolean names(String text, String normalisedAddress) {
        return text != null && text.toLowerCase(Locale.ROOT).contains(normalisedAddress);
    }
}
