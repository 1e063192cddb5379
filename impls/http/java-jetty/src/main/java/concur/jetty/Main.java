package concur.jetty;

/**
 * Starts the server from the environment (SPEC §1). No argument runs
 * java-jetty (platform threads); {@code --virtual-threads} runs
 * java-jetty-vthreads. A bad variable exits with status 2 and a sentence
 * naming it. SIGTERM runs the JVM's shutdown hooks, and Jetty's stops the
 * server ({@code setStopAtShutdown}).
 */
public final class Main {

    private Main() {}

    public static void main(String[] args) throws Exception {
        ConcurServer.Threads threads = switch (String.join(" ", args)) {
            case "" -> ConcurServer.Threads.PLATFORM;
            case "--virtual-threads" -> ConcurServer.Threads.VIRTUAL;
            default -> {
                System.err.println("usage: java -jar server.jar [--virtual-threads]");
                System.exit(2);
                yield null;
            }
        };
        Config config;
        Database.Settings db;
        try {
            config = Config.fromEnv(System.getenv());
            db = Database.Settings.fromEnv(System.getenv());
        } catch (IllegalArgumentException e) {
            System.err.println(e.getMessage());
            System.exit(2);
            return;
        }
        new ConcurServer(config, threads, db).start().join();
    }
}
