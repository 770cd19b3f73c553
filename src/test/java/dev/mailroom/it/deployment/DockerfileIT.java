package dev.mailroom.it.deployment;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * No Docker engine runs here, so {@code docker/Dockerfile} is kept honest statically, after the build made its inputs:
 * every file it copies exists where the build puts it, the script it runs is the one the build runs, its base image
 * is the WildFly version the build provisions, and it holds no secret; its entrypoint is run against a stand-in
 * WildFly to show it takes the secrets at start and keeps management inside. Boots no server (tagged into an
 * execution that boots one anyway).
 */
@Tag("default-config")
class DockerfileIT {

    private static final Path DOCKERFILE = Path.of("docker/Dockerfile");
    private static final Path COMPOSE = Path.of("docker/compose.yaml");

    @Test
    void everyFileTheImageCopiesIsMadeByTheBuild() throws IOException {
        List<String> sources = new ArrayList<>();
        Matcher copy = Pattern.compile("(?m)^COPY\\s+(\\S+)\\s+\\S+\\s*$").matcher(Files.readString(DOCKERFILE));
        while (copy.find()) {
            sources.add(copy.group(1));
        }
        assertThat(sources).as("COPY lines").contains("target/mailroom.war", "server-config/wildfly");
        // what WildFly's scripts source from beside their directory (remote-broker.sh: ../broker-url.sh)
        Matcher sourced = Pattern.compile("(?m)^\\. \"\\$here/\\.\\./(\\S+)\"$")
                .matcher(Files.readString(Path.of("server-config/wildfly/remote-broker.sh")));
        assertThat(sourced.find()).as("remote-broker.sh sources the shared broker URL parser").isTrue();
        assertThat(sources).as("COPY lines").contains("server-config/" + sourced.group(1));
        for (String source : sources) {
            assertThat(Path.of(source)).as("COPY source " + source).exists();
        }
    }

    @Test
    void theImageRunsTheBuildsConfigureScriptOnTheSameWildFly() throws IOException {
        String docker = Files.readString(DOCKERFILE);
        Matcher run = Pattern.compile("bash /opt/mailroom/(server-config/wildfly/\\S+\\.sh)").matcher(docker);
        assertThat(run.find()).as("the RUN line calls a script of server-config").isTrue();
        assertThat(Path.of(run.group(1))).isRegularFile();
        assertThat(Files.readString(Path.of("pom.xml"))).as("the build uses the same script")
                .contains(run.group(1).substring(run.group(1).lastIndexOf('/') + 1));

        Matcher from = Pattern.compile("(?m)^FROM \\S+/wildfly:(\\S+?)-jdk\\d+").matcher(docker);
        assertThat(from.find()).as("FROM a WildFly image").isTrue();
        Matcher pomVersion = Pattern.compile("<wildfly.version>(.+?)</wildfly.version>")
                .matcher(Files.readString(Path.of("pom.xml")));
        assertThat(pomVersion.find()).isTrue();
        assertThat(from.group(1)).as("the image's WildFly is the one the tests run on").isEqualTo(pomVersion.group(1));
    }

    /**
     * docker/compose.yaml (the production topology) references only files that exist: each build's context and
     * Dockerfile (and every file that Dockerfile copies), each file or directory mounted from this repository,
     * and the broker URL it builds Mailroom with is one configure.sh accepts.
     */
    @Test
    void everyFileTheComposeFileReferencesExists() throws Exception {
        String compose = Files.readString(COMPOSE);
        Path dir = COMPOSE.getParent();
        Matcher context = Pattern.compile("(?m)^\\s+context:\\s*(\\S+)\\s*$").matcher(compose);
        assertThat(context.find()).as("a build context").isTrue();
        Path root = dir.resolve(context.group(1)).normalize();
        assertThat(root).isDirectory();

        List<String> dockerfiles = new ArrayList<>();
        Matcher dockerfile = Pattern.compile("(?m)^\\s+dockerfile:\\s*(\\S+)\\s*$").matcher(compose);
        while (dockerfile.find()) {
            dockerfiles.add(dockerfile.group(1));
        }
        assertThat(dockerfiles).as("the images compose builds").contains("docker/Dockerfile", "docker/artemis.Dockerfile");
        for (String d : dockerfiles) {
            Path file = root.resolve(d);
            assertThat(file).as("Dockerfile " + d).isRegularFile();
            Matcher copy = Pattern.compile("(?m)^COPY\\s+(\\S+)\\s+\\S+\\s*$").matcher(Files.readString(file));
            while (copy.find()) {
                assertThat(root.resolve(copy.group(1))).as(d + " copies " + copy.group(1)).exists();
            }
        }

        List<String> mounts = new ArrayList<>();
        Matcher mount = Pattern.compile("(?m)^\\s+-\\s+(\\.\\.?/[^:\\s]+):").matcher(compose);
        while (mount.find()) {
            mounts.add(mount.group(1));
        }
        assertThat(mounts).as("mounted configuration").contains("../server-config/prometheus/prometheus.yml",
                "../server-config/prometheus/rules", "../server-config/alertmanager/alertmanager.yml",
                "../server-config/grafana/provisioning", "../server-config/grafana/dashboards");
        // Prometheus loads the mounted rules and sends their alerts to the compose file's Alertmanager
        String prometheus = Files.readString(Path.of("server-config/prometheus/prometheus.yml"));
        assertThat(prometheus).contains("/etc/prometheus/rules/*.yml", "alertmanager:9093");
        assertThat(compose).contains("../server-config/prometheus/rules:/etc/prometheus/rules:ro", "\n  alertmanager:\n");
        for (String m : mounts) {
            assertThat(dir.resolve(m).normalize()).as("mounted " + m).exists();
        }
        assertThat(Path.of("server-config/grafana/dashboards/mailroom.json")).isRegularFile();

        // the broker URL the Mailroom image is configured with is one remote-broker.sh turns into CLI
        Matcher url = Pattern.compile("MAILROOM_BROKER_URL:\\s*\"([^\"]+)\"").matcher(compose);
        assertThat(url.find()).as("compose builds Mailroom for the remote broker").isTrue();
        Process p = new ProcessBuilder("bash", "server-config/wildfly/remote-broker.sh", url.group(1))
                .redirectErrorStream(true).start();
        String cli = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        assertThat(p.waitFor()).as(cli).isZero();
        assertThat(cli).contains("remote-destination-outbound-socket-binding=mailroom-broker-1:add(host=artemis-primary, port=61616)",
                "remote-destination-outbound-socket-binding=mailroom-broker-2:add(host=artemis-backup, port=61616)",
                "transaction=xa", "ha=true", "reconnect-attempts=-1");
    }

    /** Names that carry a secret: a build argument or image variable by such a name would stay in the image. */
    private static final Pattern SECRET = Pattern.compile("[A-Z0-9_]*(PASSWORD|SECRET|API_KEY|SIGNING_KEY|PUBLIC_KEY|TOKEN)[A-Z0-9_]*");

    @Test
    void theImageHoldsNoSecretAndItsBuildTakesNone() throws IOException {
        String docker = Files.readString(DOCKERFILE);
        Matcher declared = Pattern.compile("(?m)^(ARG|ENV)\\s+([A-Za-z0-9_]+)").matcher(docker);
        List<String> names = new ArrayList<>();
        while (declared.find()) {
            names.add(declared.group(2));
        }
        assertThat(names).as("build arguments and image variables").noneMatch(n -> SECRET.matcher(n).matches());
        Matcher run = Pattern.compile("(?ms)^RUN .*?[^\\\\]$").matcher(docker);
        while (run.find()) {
            assertThat(SECRET.matcher(run.group()).find()).as("a RUN line naming a secret: " + run.group()).isFalse();
        }
        String compose = Files.readString(COMPOSE);
        Matcher args = Pattern.compile("(?m)^    args:\\n((?:      .*\\n)+)").matcher(compose);
        while (args.find()) {
            assertThat(SECRET.matcher(args.group(1)).find()).as("compose's build args: " + args.group(1)).isFalse();
        }
        assertThat(docker).as("the image starts through its entrypoint").contains("ENTRYPOINT [\"bash\", \"/opt/mailroom/entrypoint.sh\"]");
    }

    @Test
    void theEntrypointTakesSecretsFromTheEnvironmentOrFilesAndKeepsManagementInside() throws Exception {
        Path fake = Files.createTempDirectory("fake-wildfly");
        Path bin = Files.createDirectories(fake.resolve("bin"));
        Files.writeString(bin.resolve("add-user.sh"), "echo \"add-user $*\" >> \"" + fake.resolve("calls") + "\"\n");
        Files.writeString(bin.resolve("standalone.sh"), "echo \"standalone $* db=$MAILROOM_DB_PASSWORD\" >> \""
                + fake.resolve("calls") + "\"\n");
        assertThat(bin.resolve("add-user.sh").toFile().setExecutable(true)).isTrue();
        assertThat(bin.resolve("standalone.sh").toFile().setExecutable(true)).isTrue();
        Path secret = Files.writeString(fake.resolve("operator-secret"), "s3cret-from-a-file\n");
        Path db = Files.writeString(fake.resolve("db-secret"), "db-from-a-file");

        Entrypoint started = entrypoint(fake, java.util.Map.of("MAILROOM_OPERATOR_PASSWORD_FILE", secret.toString(),
                "MAILROOM_DB_PASSWORD_FILE", db.toString(), "MAILROOM_VIEWER_PASSWORD", "v-pass"));
        assertThat(started.exit()).as(started.output()).isZero();
        List<String> calls = Files.readAllLines(fake.resolve("calls"));
        assertThat(calls).anyMatch(c -> c.startsWith("add-user -a -s -sc ") && c.endsWith(
                "-u operator -p s3cret-from-a-file -g mailroom-operator"));
        assertThat(calls).anyMatch(c -> c.endsWith("-u viewer -p v-pass -g mailroom-viewer"));
        assertThat(calls.get(calls.size() - 1)).isEqualTo(
                "standalone -c standalone-mailroom.xml -b 0.0.0.0 -bmanagement 127.0.0.1 db=db-from-a-file");

        Files.delete(fake.resolve("calls"));
        Entrypoint asked = entrypoint(fake, java.util.Map.of("MAILROOM_OPERATOR_PASSWORD", "op",
                "MAILROOM_MANAGEMENT_BIND", "0.0.0.0"));
        assertThat(asked.exit()).as(asked.output()).isZero();
        assertThat(Files.readString(fake.resolve("calls"))).contains("-bmanagement 0.0.0.0");

        Entrypoint refused = entrypoint(fake, java.util.Map.of());
        assertThat(refused.exit()).isEqualTo(1);
        assertThat(refused.output()).contains("MAILROOM_OPERATOR_PASSWORD (or MAILROOM_OPERATOR_PASSWORD_FILE) is required");
        Entrypoint both = entrypoint(fake, java.util.Map.of("MAILROOM_OPERATOR_PASSWORD", "op",
                "MAILROOM_OPERATOR_PASSWORD_FILE", secret.toString()));
        assertThat(both.exit()).isEqualTo(1);
        assertThat(both.output()).contains("both MAILROOM_OPERATOR_PASSWORD and MAILROOM_OPERATOR_PASSWORD_FILE are set");
    }

    private record Entrypoint(int exit, String output) {
    }

    private static Entrypoint entrypoint(Path wildfly, java.util.Map<String, String> env) throws Exception {
        ProcessBuilder pb = new ProcessBuilder("bash", "docker/entrypoint.sh").redirectErrorStream(true);
        pb.environment().keySet().removeIf(k -> k.startsWith("MAILROOM_"));
        pb.environment().put("WILDFLY_HOME", wildfly.toString());
        pb.environment().put("MAILROOM_HOME", Path.of("").toAbsolutePath().toString());
        pb.environment().putAll(env);
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        return new Entrypoint(p.waitFor(), out);
    }
}
