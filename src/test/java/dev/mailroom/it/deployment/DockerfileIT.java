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
 * every file it copies exists where the build puts it, the script it runs is the one the build runs, and its base
 * image is the WildFly version the build provisions. Boots no server (tagged into an execution that boots one anyway).
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
}
