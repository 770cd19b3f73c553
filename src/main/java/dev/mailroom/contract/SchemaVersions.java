package dev.mailroom.contract;

import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Which {@code schema_version} a job field needs. A version adds optional fields and changes nothing else, so a job
 * written for an older version reads the same under a newer build, and a producer that uses no new field can keep
 * writing the older version (which an older Mailroom still reads). A job that declares an older version but carries
 * a newer field is refused: its producer believes it is talking to a contract the field is not part of.
 */
public final class SchemaVersions {

    /** The oldest version this build reads. */
    public static final int OLDEST = 1;
    /** The newest version this build reads. */
    public static final int LATEST = 3;

    /** The fields added after version 1, with the version that added them; every other field is version 1's. */
    private static final Map<String, Integer> ADDED_IN = addedIn();

    private SchemaVersions() {
    }

    private static Map<String, Integer> addedIn() {
        Map<String, Integer> m = new LinkedHashMap<>();
        m.put("attachments", 2);
        m.put("send_at", 2);
        m.put("ordering_key", 3);
        return java.util.Collections.unmodifiableMap(m);
    }

    /** The fields added after version 1 and the version each needs, in the order they were added. */
    public static Map<String, Integer> addedFields() {
        return ADDED_IN;
    }

    /** Whether this build reads {@code version}. */
    public static boolean isSupported(int version) {
        return version >= OLDEST && version <= LATEST;
    }

    /** The version that added {@code field} (1 for every field not added later). */
    public static int since(String field) {
        return ADDED_IN.getOrDefault(field, OLDEST);
    }

    /** The lowest version whose contract has every one of {@code fields}: what a producer should declare. */
    public static int needed(Collection<String> fields) {
        return fields.stream().mapToInt(SchemaVersions::since).max().orElse(OLDEST);
    }

    /**
     * The violations of a job that declares {@code version} and carries {@code fields}: one per field its version does
     * not have, {@code /<field>: needs schema_version <n> (this job declares schema_version <v>)}, in field order.
     */
    public static List<String> tooNew(int version, Collection<String> fields) {
        List<String> violations = new ArrayList<>();
        for (String field : fields) {
            int needs = since(field);
            if (needs > version) {
                violations.add("/" + ParseMessages.escapePointer(field) + ": needs schema_version " + needs
                        + " (this job declares schema_version " + version + ")");
            }
        }
        return violations;
    }
}
