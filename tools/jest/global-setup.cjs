// Probes shared by the integration and e2e projects run once, before any suite registers tests.
module.exports = async () => {};
