package dev.mailroom.contract;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * A job's one-click unsubscribe: the https URL a mailbox provider POSTs to (RFC 8058) and an optional address for
 * the older mailto form (RFC 2369). The contract's schema has checked both before this is built.
 *
 * @param url    https URL, no spaces, commas or angle brackets (they would break the header's list syntax)
 * @param mailto an address ({@code local@domain}) or null
 */
public record Unsubscribe(String url, String mailto) {

    public static final String LIST_UNSUBSCRIBE = "List-Unsubscribe";
    public static final String LIST_UNSUBSCRIBE_POST = "List-Unsubscribe-Post";
    /** The only value RFC 8058 allows: the body a one-click POST carries. */
    public static final String ONE_CLICK = "List-Unsubscribe=One-Click";

    public Unsubscribe {
        Objects.requireNonNull(url, "url");
    }

    /**
     * The two headers, in the order a mail carries them: {@code List-Unsubscribe: <https://...>, <mailto:...>} (the
     * https URL first, so a reader taking the first one takes the one-click URL) and {@code List-Unsubscribe-Post}.
     */
    public Map<String, String> headers() {
        Map<String, String> h = new LinkedHashMap<>();
        h.put(LIST_UNSUBSCRIBE, "<" + url + ">" + (mailto == null ? "" : ", <mailto:" + mailto + ">"));
        h.put(LIST_UNSUBSCRIBE_POST, ONE_CLICK);
        return h;
    }
}
