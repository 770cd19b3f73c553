package dev.mailroom.platform;

import jakarta.enterprise.context.ApplicationScoped;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Properties;

/** This build's identity, written by Maven into mailroom-build.properties: the dead letters' consumer_version. */
@ApplicationScoped
public class BuildInfo {

    private final String version;
    private final String commit;

    public BuildInfo() {
        Properties p = new Properties();
        try (InputStream in = BuildInfo.class.getResourceAsStream("/mailroom-build.properties")) {
            if (in != null) {
                p.load(in);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        version = p.getProperty("version", "unknown");
        commit = p.getProperty("commit", "unknown");
    }

    public String version() { return version; }

    public String commit() { return commit; }

    /** {@code <version>+<commit>}, e.g. {@code 0.1.0-SNAPSHOT+3f2a9c1d0e4b}. */
    public String consumerVersion() { return version + "+" + commit; }
}
