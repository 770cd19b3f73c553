package dev.mailroom.attachment;

import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.URI;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * Which URLs Mailroom may fetch an attachment from: only those under one of {@code mailroom.attachments.allowed-prefixes},
 * and never one whose host resolves to a loopback, private, link-local or otherwise internal address (the management
 * port, a cloud metadata service) unless the matching prefix names such an address itself (an IP literal, or
 * {@code localhost}): an operator who lists {@code http://10.0.0.5/files/} means it, a DNS name that resolves inside
 * the network is a way in. Every redirect is decided again by the same rule. Pure: the addresses are resolved by the
 * caller.
 */
public final class SourceRule {

    private SourceRule() {
    }

    /** The decision on one URL. */
    public sealed interface Decision {
    }

    /** The URL may be fetched. */
    public record Allowed() implements Decision {
    }

    /** It may not; {@code why} says which part of the rule refused it. */
    public record Refused(String why) implements Decision {
    }

    /**
     * The prefix that lists {@code url}, if any. A prefix matches the URL's text from its start, and a prefix that
     * ends inside a host or a path segment ({@code https://files.shop.example} without a slash) matches only up to
     * a boundary, so {@code https://files.shop.example.evil.test/} and {@code https://files.shop.example:8443/} are not
     * under it. Compared without case.
     */
    public static Optional<String> listedBy(String url, List<String> prefixes) {
        for (String prefix : prefixes) {
            if (under(url, prefix)) {
                return Optional.of(prefix);
            }
        }
        return Optional.empty();
    }

    /** Whether {@code url} may be fetched, its host resolving to {@code addresses}. */
    public static Decision decide(String url, List<String> prefixes, List<InetAddress> addresses) {
        URI uri;
        try {
            uri = new URI(url);
        } catch (java.net.URISyntaxException e) {
            return new Refused("not a URL: " + e.getMessage());
        }
        String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
        if (!scheme.equals("http") && !scheme.equals("https") || uri.getHost() == null) {
            return new Refused("not an http or https URL with a host");
        }
        if (uri.getRawUserInfo() != null) {
            return new Refused("a URL with user information is never fetched");
        }
        Optional<String> prefix = listedBy(url, prefixes);
        if (prefix.isEmpty()) {
            return new Refused("under none of mailroom.attachments.allowed-prefixes");
        }
        if (addresses.isEmpty()) {
            return new Refused("its host resolves to no address");
        }
        boolean namedInternal = namesInternal(prefix.get());
        for (InetAddress a : addresses) {
            if (isInternal(a) && !namedInternal) {
                return new Refused("its host resolves to the internal address " + a.getHostAddress()
                        + ", which no allowed prefix names");
            }
        }
        return new Allowed();
    }

    /**
     * Whether the part of a URL after its prefix climbs out of it: a {@code .} or {@code ..} segment, written or
     * percent-encoded, which a server resolves ({@code /files/../management} is under {@code /files/} only as text).
     */
    static boolean hasDotSegment(String rest) {
        String path = rest.toLowerCase(Locale.ROOT).replace("%2e", ".");
        int end = path.length();
        for (char c : new char[] {'?', '#'}) {
            int i = path.indexOf(c);
            if (i >= 0 && i < end) {
                end = i;
            }
        }
        for (String segment : path.substring(0, end).split("/|%2f|\\\\", -1)) {
            if (segment.equals(".") || segment.equals("..")) {
                return true;
            }
        }
        return false;
    }

    /** Whether an address is one a fetch must not reach unless an operator named it. */
    static boolean isInternal(InetAddress a) {
        if (a.isLoopbackAddress() || a.isAnyLocalAddress() || a.isLinkLocalAddress() || a.isSiteLocalAddress()
                || a.isMulticastAddress()) {
            return true;
        }
        byte[] b = a.getAddress();
        if (a instanceof Inet6Address) {
            // unique local fc00::/7; an IPv4-mapped address is judged as the IPv4 address it is
            if ((b[0] & 0xFE) == 0xFC) {
                return true;
            }
            boolean mapped = true;
            for (int i = 0; i < 10; i++) {
                mapped &= b[i] == 0;
            }
            if (mapped && (b[10] & 0xFF) == 0xFF && (b[11] & 0xFF) == 0xFF) {
                try {
                    return isInternal(InetAddress.getByAddress(java.util.Arrays.copyOfRange(b, 12, 16)));
                } catch (java.net.UnknownHostException e) {
                    return true;
                }
            }
            return false;
        }
        int first = b[0] & 0xFF;
        int second = b[1] & 0xFF;
        // 0/8, 100.64/10 (carrier-grade NAT), 192.0.0/24, 198.18/15 (benchmarking), 240/4 (reserved)
        return first == 0 || first == 100 && second >= 64 && second < 128 || first == 192 && second == 0 && (b[2] & 0xFF) == 0
                || first == 198 && (second == 18 || second == 19) || first >= 240;
    }

    /** Whether a prefix's host is itself an internal address (an IP literal) or {@code localhost}. */
    static boolean namesInternal(String prefix) {
        String host;
        try {
            host = new URI(prefix).getHost();
        } catch (java.net.URISyntaxException e) {
            return false;
        }
        if (host == null) {
            return false;
        }
        String h = host.toLowerCase(Locale.ROOT);
        if (h.equals("localhost")) {
            return true;
        }
        if (!h.matches("[0-9.]+") && !h.startsWith("[")) {
            return false; // a name: what it resolves to is not what the operator wrote
        }
        try {
            return isInternal(InetAddress.getByName(h.startsWith("[") ? h.substring(1, h.length() - 1) : h));
        } catch (java.net.UnknownHostException e) {
            return false;
        }
    }

    private static boolean under(String url, String prefix) {
        if (url.length() < prefix.length() || !url.regionMatches(true, 0, prefix, 0, prefix.length())
                || hasDotSegment(url.substring(prefix.length()))) {
            return false;
        }
        if (url.length() == prefix.length() || prefix.endsWith("/") || prefix.endsWith("?") || prefix.endsWith("=")) {
            return true;
        }
        // the prefix ends inside a name: the URL must continue at a boundary (not at a port: a prefix without one
        // means the scheme's own)
        char next = url.charAt(prefix.length());
        return next == '/' || next == '?' || next == '#';
    }
}
