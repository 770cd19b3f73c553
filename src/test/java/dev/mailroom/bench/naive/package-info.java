/**
 * The plain baselines of {@code bench/run.sh}, what a team would write without Mailroom. The
 * <i>naive</i> bean receives in a JTA transaction, parses the JSON, makes one JPA insert, calls the same provider and
 * commits. The <i>guarded</i> bean is the cheapest that keeps Mailroom's two rules for a provider outside the database
 * (claim + attempt committed before the call, the acceptance committed on its own): the floor of the guarantees' price.
 * {@code SendBench} packages these classes as {@code naive-mdb.war} and deploys it into the benchmark's server only;
 * they are test classes, never in Mailroom's WARs.
 */
package dev.mailroom.bench.naive;
