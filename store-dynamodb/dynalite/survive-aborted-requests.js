// Preloaded into dynalite (node --require): dynalite throws from a request's 'error' handler when a
// client goes away mid-request (ECONNRESET "aborted"), which ends the whole server. The crash tests kill
// JVMs in the middle of DynamoDB requests, so such an abort is logged and the server goes on; any other
// uncaught error still ends it.
process.on('uncaughtException', (err) => {
  if (err && err.code === 'ECONNRESET') {
    console.error(`dynalite: a client went away mid-request (${err.message}); serving on`);
    return;
  }
  console.error(err);
  process.exit(1);
});
