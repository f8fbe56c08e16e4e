// Shared by the launchers beside this file: runs dist/cli/<program>/main.js, or says to build first.
export async function launch(program) {
  const main = `../dist/cli/${program}/main.js`;
  try {
    await import(main);
  } catch (err) {
    if (err?.code === 'ERR_MODULE_NOT_FOUND' && String(err.message).includes(`dist/cli/${program}/main.js`)) {
      console.error(`${program} is not built yet: run \`npm run build\` in the repository first`);
      process.exit(1);
    }
    throw err;
  }
}
