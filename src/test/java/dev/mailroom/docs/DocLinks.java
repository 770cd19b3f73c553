package dev.mailroom.docs;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Links between the pages: every relative link names a file that exists and, into a page, a heading it has. */
final class DocLinks {

    private static final Pattern LINK = Pattern.compile("\\]\\(([^)\\s]+)\\)");
    private static final Pattern HEADING = Pattern.compile("(?m)^#+ (.*)$");

    private DocLinks() {
    }

    /** The links of {@code page} (its text {@code text}) that lead nowhere, one readable line each. */
    static List<String> broken(Path page, String text) {
        List<String> found = new ArrayList<>();
        Matcher m = LINK.matcher(text);
        while (m.find()) {
            String target = m.group(1);
            if (target.matches("^[a-z]+:.*")) {
                continue;
            }
            int hash = target.indexOf('#');
            String file = hash < 0 ? target : target.substring(0, hash);
            String anchor = hash < 0 ? null : target.substring(hash + 1);
            Path resolved = file.isEmpty() ? page : page.resolveSibling(file).normalize();
            if (!Files.exists(resolved)) {
                found.add(page + ": link " + target + " names no file");
            } else if (anchor != null && resolved.toString().endsWith(".md")
                    && !anchors(file.isEmpty() ? text : CodeNames.read(resolved)).contains(anchor)) {
                found.add(page + ": link " + target + " names no heading of " + resolved);
            }
        }
        return found;
    }

    /** GitHub's anchors of a page's headings: lower case, punctuation dropped, spaces as hyphens. */
    static Set<String> anchors(String text) {
        Set<String> anchors = new HashSet<>();
        Matcher h = HEADING.matcher(text);
        while (h.find()) {
            anchors.add(h.group(1).trim().toLowerCase(Locale.ROOT).replaceAll("[^\\p{L}\\p{N}_\\- ]", "").replace(' ', '-'));
        }
        return anchors;
    }
}
