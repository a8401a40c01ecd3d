// node check.mjs FILE...: validates every document of built-in kind in the YAML files against the
// Kubernetes schemas the kubernetes-models package carries (types, required fields, enumerations);
// kinds of other API groups (operators' custom resources) are listed as skipped. Exit status 1 when
// any document is invalid. Used by KubernetesManifestsTest where kubernetes-validate is missing.
import * as yaml from 'js-yaml';
import { readFileSync } from 'node:fs';

let invalid = 0;
for (const file of process.argv.slice(2)) {
  for (const doc of yaml.loadAll(readFileSync(file, 'utf8'))) {
    if (!doc) {
      continue;
    }
    const [group, version] = doc.apiVersion.includes('/') ? doc.apiVersion.split('/') : ['', doc.apiVersion];
    const name = `${doc.kind} ${doc.metadata?.name}`;
    if (group.includes('.') && !group.endsWith('.k8s.io')) {
      console.log(`skipped ${name} (${doc.apiVersion})`);
      continue;
    }
    const models = await import(group === '' ? `kubernetes-models/${version}` : `kubernetes-models/${group}/${version}`);
    const Kind = models[doc.kind];
    if (!Kind) {
      invalid++;
      console.log(`INVALID ${name}: no kind ${doc.kind} in ${doc.apiVersion}`);
      continue;
    }
    try {
      new Kind(doc).validate();
      console.log(`valid ${name}`);
    } catch (error) {
      invalid++;
      console.log(`INVALID ${name}: ${error.message}`);
    }
  }
}
process.exit(invalid > 0 ? 1 : 0);
