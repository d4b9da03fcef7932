// Node module-resolution hook: resolve @mtrl/* packages to their TypeScript sources.
export async function resolve(specifier, context, next) {
  const conditions = context.conditions.includes('@mtrl/source') ? context.conditions : ['@mtrl/source', ...context.conditions]
  return next(specifier, { ...context, conditions })
}
